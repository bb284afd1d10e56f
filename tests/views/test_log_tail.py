"""The tail follows a log by byte offset: each event once, whole, however it is written."""

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from storekit import NODE_A, created, ev

from desktop.store.eventlog import EventLog
from desktop.views.reader import EventReader, LogTail


def _lines(count: int) -> list[bytes]:
    events = [created(), *(ev("message.assistant.delta", nodeId=NODE_A, text="é" * (i % 5))
                           for i in range(count - 1))]
    return [orjson.dumps({**e, "seq": i}) + b"\n" for i, e in enumerate(events, start=1)]


@settings(max_examples=60, deadline=None)
@given(count=st.integers(1, 25), cuts=st.lists(st.integers(0, 4000), max_size=30),
       reads=st.lists(st.booleans(), max_size=30))
def test_a_log_written_in_pieces_is_read_once_and_whole(tmp_path_factory, count, cuts, reads):
    run_dir = tmp_path_factory.mktemp("run")
    lines = _lines(count)
    data = b"".join(lines)
    bounds = sorted({min(c, len(data)) for c in cuts} | {len(data)})
    tail = LogTail(run_dir)
    got: list[dict] = []
    start = 0
    with open(run_dir / "events.jsonl", "wb", buffering=0) as fh:
        for i, end in enumerate(bounds):
            fh.write(data[start:end])  # a piece may end anywhere, even inside a character
            start = end
            if i >= len(reads) or reads[i]:
                got += tail.read_new()
    got += tail.read_new()
    assert [e["seq"] for e in got] == list(range(1, count + 1))
    assert got == [orjson.loads(line) for line in lines]
    assert tail.read_new() == []


def test_after_skips_what_was_seen_and_a_repaired_log_is_picked_up(tmp_path):
    with EventLog.open(tmp_path) as log:
        log.append(created())
        for _ in range(9):
            log.append(ev("node.heartbeat"))
    tail = LogTail(tmp_path, after=7)
    assert [e["seq"] for e in tail.read_new()] == [8, 9, 10]
    with open(tmp_path / "events.jsonl", "ab") as fh:
        fh.write(b'{"seq":11,"type":"node.hea')  # a writer that crashed mid-line
    assert tail.read_new() == []
    with EventLog.open(tmp_path) as log:  # the next writer cuts the torn line and goes on
        log.append(ev("node.heartbeat"))
    got = tail.read_new()
    assert [e["type"] for e in got] == ["log.recovered", "node.heartbeat"]
    assert [e["seq"] for e in got] == [11, 12]


def test_a_replaced_log_is_read_from_the_seq_after_the_last_one_returned(tmp_path):
    with EventLog.open(tmp_path) as log:
        log.append(created())
        for _ in range(5):
            log.append(ev("node.heartbeat"))
    tail = EventReader(tmp_path).tail()
    assert len(tail.read_new()) == 6
    lines = (tmp_path / "events.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "events.jsonl").write_bytes(b"".join(lines[:3]))  # shrunk under the tail
    assert tail.read_new() == []
    with open(tmp_path / "events.jsonl", "ab") as fh:
        fh.write(b"".join(lines[3:]))
        fh.write(orjson.dumps({**ev("node.heartbeat"), "seq": 7}) + b"\n")
    assert [e["seq"] for e in tail.read_new()] == [7]


def test_a_missing_log_reads_empty(tmp_path):
    assert LogTail(tmp_path / "nothing").read_new() == []
