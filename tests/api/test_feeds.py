"""A run's feed: batches gathered between hand-outs, in order, the frames it keeps, and
nothing left behind."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.api import feeds as feeds_module
from desktop.api.feeds import Feeds
from desktop.api.history import FrameHistory
from desktop.api.stream import FRAME_EVENTS, Batch


class Client:
    """Stands in for a StreamClient: records what the feed offers it."""

    def __init__(self) -> None:
        self.batches: list[Batch] = []
        self.closed: tuple[int, str] | None = None

    def offer(self, batch: Batch) -> None:
        self.batches.append(batch)

    def close(self, code: int, message: str) -> None:
        self.closed = (code, message)

    @property
    def seqs(self) -> list[int]:
        return [e["seq"] for b in self.batches for e in b.events]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def events(first: int, count: int) -> list[dict[str, Any]]:
    return [{"seq": seq} for seq in range(first, first + count)]


async def test_batches_within_the_interval_go_out_together_once_encoded() -> None:
    clock = Clock()
    feeds = Feeds(every=30.0, clock=clock)  # a timer this long never fires in the test
    feeds.bind(asyncio.get_running_loop())
    fast, other = Client(), Client()
    feeds.join("run", fast)  # type: ignore[arg-type]
    feeds.join("run", other)  # type: ignore[arg-type]

    feeds.publish("run", events(1, 3))
    await asyncio.sleep(0)  # a quiet stream: the first batch goes out on the next turn
    assert fast.seqs == [1, 2, 3]
    for first in range(4, 40, 4):  # a burst: each batch on a turn of its own
        feeds.publish("run", events(first, 4))
        await asyncio.sleep(0)
    assert fast.seqs == [1, 2, 3] and feeds.pending == 1  # held until the interval is up

    clock.now += 30.0
    feeds._hand_out("run")  # what the timer does when it fires
    assert fast.seqs == list(range(1, 40)) == other.seqs
    assert len(fast.batches) == 2
    assert fast.batches[1] is other.batches[1]  # one Batch, so one encoding, for both
    assert feeds.pending == 0


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(1, 30), min_size=1, max_size=40),
       turns=st.lists(st.booleans(), min_size=1, max_size=10))
def test_every_event_is_handed_out_once_in_order(sizes: list[int], turns: list[bool]) -> None:
    async def main() -> tuple[list[int], int]:
        feeds = Feeds(every=0.001)
        feeds.bind(asyncio.get_running_loop())
        client = Client()
        feeds.join("run", client)  # type: ignore[arg-type]
        seq = 0
        for size, turn in zip(sizes, itertools.cycle(turns), strict=False):
            feeds.publish("run", events(seq + 1, size))
            seq += size
            if turn:
                await asyncio.sleep(0)
        while feeds.pending:
            await asyncio.sleep(0.001)
        return client.seqs, seq

    seqs, last = asyncio.run(main())
    assert seqs == list(range(1, last + 1))


async def test_closing_cancels_the_timer_and_closes_every_client() -> None:
    clock = Clock()
    feeds = Feeds(every=30.0, clock=clock)
    feeds.bind(asyncio.get_running_loop())
    a, b, c = Client(), Client(), Client()
    feeds.join("one", a)  # type: ignore[arg-type]
    feeds.join("one", b)  # type: ignore[arg-type]
    leave_c = feeds.join("two", c)  # type: ignore[arg-type]
    for run_id in ("one", "two"):
        feeds.publish(run_id, events(1, 1))
    await asyncio.sleep(0)
    for run_id in ("one", "two"):
        feeds.publish(run_id, events(2, 1))  # gathered: a timer per run
    assert feeds.pending == 2

    leave_c()  # the last client of "two" leaves: its timer goes with it (its frames
    assert feeds.pending == 1  # stay a while, for a client that reconnects)
    assert feeds.kept("two").after(0) is not None
    feeds.close_all(1001, "the service is shutting down")
    assert feeds.pending == 0 and feeds.kept_runs == 0
    assert a.closed == b.closed == (1001, "the service is shutting down")
    assert c.closed is None and a.seqs == [1] and c.seqs == [1]


async def test_a_run_nobody_follows_gathers_nothing() -> None:
    feeds = Feeds()
    feeds.bind(asyncio.get_running_loop())
    feeds.publish("run", events(1, 5))
    assert feeds.pending == 0


def batch(first: int, count: int) -> Batch:
    return Batch(events(first, count))


def test_history_finds_each_kept_frame_by_the_seq_before_it() -> None:
    history = FrameHistory()
    history.add(batch(1, 3))
    history.add(batch(4, 1200))  # three frames of at most FRAME_EVENTS
    starts = [0, 3, 3 + FRAME_EVENTS, 3 + 2 * FRAME_EVENTS]
    for seq, end in zip(starts, [*starts[1:], 1203], strict=True):
        kept = history.after(seq)
        assert kept is not None and kept[1] == end
        assert [e["seq"] for e in json.loads(kept[0])] == list(range(seq + 1, end + 1))
    assert history.after(1) is None and history.after(1203) is None  # not a frame's start
    assert [history.next_start(seq) for seq in (-1, 0, 1, 3, 1000, 1202)] == [
        1, 4, 4, 4 + FRAME_EVENTS, 4 + 2 * FRAME_EVENTS, None]


def test_history_starts_over_after_a_gap_and_keeps_its_newest_bytes() -> None:
    history = FrameHistory()
    history.add(batch(1, 10))
    history.add(batch(20, 5))  # seqs 11..19 were never handed out here
    assert history.after(0) is None and history.after(19) is not None
    history.add(Batch([{"seq": 25}, {"seq": 27}]))  # not consecutive: nothing is kept
    assert history.after(19) is None and history.size == 0

    small = FrameHistory(limit=300)
    for first in range(1, 200, 10):
        small.add(batch(first, 10))
        assert small.size <= 300
    assert small.after(190) is not None and small.after(0) is None


async def test_kept_frames_outlast_the_last_client_for_a_reconnect_then_go(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feeds_module, "KEEP_FOR", 0.01)
    feeds = Feeds(every=0.0)
    feeds.bind(asyncio.get_running_loop())
    leave = feeds.join("run", Client())  # type: ignore[arg-type]
    feeds.publish("run", events(1, 4))
    await asyncio.sleep(0)
    kept = feeds.kept("run").after(0)
    assert kept is not None and kept[1] == 4
    leave()
    leave = feeds.join("run", Client())  # type: ignore[arg-type]  # back at once
    leave()
    assert feeds.kept("run").after(0) == kept
    while feeds.kept_runs:  # then nobody comes back
        await asyncio.sleep(0.01)
    assert feeds.kept("run").after(0) is None
