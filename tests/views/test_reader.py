"""The reader: pages by seq (with the sparse index), full scans, the live tail."""

import asyncio
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from storekit import NODE_A, created, ev

from desktop.store.eventlog import EventLog
from desktop.views.reader import EventReader

N = 300


@pytest.fixture
def run_dir(tmp_path):
    with EventLog.open(tmp_path) as log:
        log.append(created())
        for i in range(N - 1):
            log.append(ev("node.progress", nodeId=NODE_A, message=f"m{i}" * (i % 7)))
            if i % 17 == 0:
                log.flush()
    return tmp_path


def seqs(page):
    return [e["seq"] for e in page.events]


def test_newest_page_and_backward_walk(run_dir):
    reader = EventReader(run_dir, index_step=512)
    page = reader.page(limit=100)
    assert seqs(page) == list(range(201, 301)) and page.has_more and page.next_cursor == 201
    page = reader.page(limit=100, before=page.next_cursor)
    assert seqs(page) == list(range(101, 201))
    page = reader.page(limit=100, before=page.next_cursor)
    assert seqs(page) == list(range(1, 101)) and not page.has_more and page.next_cursor is None
    assert (run_dir / "events.idx").exists()


def test_forward_walk_and_window(run_dir):
    reader = EventReader(run_dir, index_step=512)
    page = reader.page(limit=120, after=0)
    assert seqs(page) == list(range(1, 121)) and page.next_cursor == 120
    page = reader.page(limit=500, after=page.next_cursor)
    assert seqs(page) == list(range(121, 301)) and not page.has_more
    assert seqs(reader.page(limit=10, after=50, before=55)) == [51, 52, 53, 54]
    assert reader.page(limit=10, after=300).events == []
    with pytest.raises(ValueError):
        reader.page(limit=0)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limit=st.integers(1, 90), step=st.sampled_from([64, 300, 4096, 1 << 16]),
       start=st.integers(0, N + 5))
def test_paging_covers_every_event_once(run_dir, limit, step, start):
    reader = EventReader(run_dir, index_step=step)
    got, cursor = [], start
    while True:
        page = reader.page(limit=limit, after=cursor)
        got += seqs(page)
        if not page.has_more:
            break
        cursor = page.next_cursor
    assert got == list(range(start + 1, N + 1))
    back, cursor = [], start + 1
    while True:
        page = reader.page(limit=limit, before=cursor)
        back = seqs(page) + back
        if not page.has_more:
            break
        cursor = page.next_cursor
    assert back == list(range(1, min(start, N) + 1))


def test_stale_and_wrong_index_are_repaired(run_dir):
    EventReader(run_dir, index_step=256).page(limit=5, before=100)
    with EventLog.open(run_dir) as log:  # the log grows: the index is extended
        for _ in range(50):
            log.append(ev("node.heartbeat"))
    assert seqs(EventReader(run_dir, index_step=256).page(limit=3, before=340)) == [
        337, 338, 339]
    idx = json.loads((run_dir / "events.idx").read_text())
    idx["entries"] = [[s + 7, o] for s, o in idx["entries"]]  # lies about seqs
    (run_dir / "events.idx").write_text(json.dumps(idx))
    assert seqs(EventReader(run_dir, index_step=256).page(limit=3, after=200)) == [
        201, 202, 203]
    (run_dir / "events.idx").write_text("{garbage")
    assert seqs(EventReader(run_dir, index_step=256).page(limit=2, after=10)) == [11, 12]


def test_iter_events_after_and_corrupt_lines(run_dir):
    reader = EventReader(run_dir, index_step=256)
    assert [e["seq"] for e in reader.iter_events(after=290)] == list(range(291, 301))
    with open(run_dir / "events.jsonl", "ab") as fh:
        fh.write(b"nonsense\n" + b'{"seq":5,"type":"dup"}\n' + b'{"seq":301,"type":"x"}\n'
                 + b'{"seq":302')
    assert [e["seq"] for e in reader.iter_events(after=298)] == [299, 300, 301]
    assert [p.kind for p in reader.problems] == ["corrupt_line", "corrupt_line", "torn_tail"]
    page = reader.page(limit=3)
    assert seqs(page) == [299, 300, 301]


def test_missing_log_reads_empty(tmp_path):
    reader = EventReader(tmp_path / "nothing")
    assert list(reader.iter_events()) == []
    assert reader.page().events == []


async def test_follow_sees_new_events_live(run_dir):
    reader = EventReader(run_dir)
    got: list[int] = []

    async def consume():
        async for e in reader.follow(after=295, poll=0.01):
            got.append(e["seq"])
            if e["seq"] == 310:
                return

    task = asyncio.create_task(consume())
    log = EventLog.open(run_dir)
    for _ in range(2):
        await asyncio.sleep(0.03)
        for _ in range(5):
            log.append(ev("node.heartbeat"))
        log.flush()
    await asyncio.wait_for(task, 10)
    log.close()
    assert got == list(range(296, 311))
