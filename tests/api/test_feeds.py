"""A run's feed: batches gathered between hand-outs, in order, and nothing left behind."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.api.feeds import Feeds
from desktop.api.stream import Batch


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

    leave_c()  # the last client of "two" leaves: its timer goes with it
    assert feeds.pending == 1
    feeds.close_all(1001, "the service is shutting down")
    assert feeds.pending == 0
    assert a.closed == b.closed == (1001, "the service is shutting down")
    assert c.closed is None and a.seqs == [1] and c.seqs == [1]


async def test_a_run_nobody_follows_gathers_nothing() -> None:
    feeds = Feeds()
    feeds.bind(asyncio.get_running_loop())
    feeds.publish("run", events(1, 5))
    assert feeds.pending == 0
