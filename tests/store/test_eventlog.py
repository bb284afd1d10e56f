"""The event-log writer: seq, batches, subscribers, external appenders, crash recovery."""

import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from storekit import NODE_A, RUN_ID, created, ev

from desktop.contract.events import NodeHeartbeat
from desktop.store.eventlog import Durability, EventLog, append_external
from desktop.views.reader import EventReader

ROOT = Path(__file__).resolve().parents[2]


def lines(run_dir: Path) -> list[dict]:
    return [orjson.loads(x) for x in (run_dir / "events.jsonl").read_bytes().splitlines()]


def write_events(run_dir: Path, n: int, batch: int = 5) -> list[dict]:
    with EventLog.open(run_dir) as log:
        log.append(created())
        for i in range(n):
            log.append(ev("node.progress", nodeId=NODE_A, message=f"m{i}"))
            if i % batch == 0:
                log.flush()
    return lines(run_dir)


def test_append_flush_assigns_seq_and_tells_subscribers_after_writing(tmp_path):
    log = EventLog.open(tmp_path)
    seen: list[tuple[list[int], int]] = []
    log.subscribe(lambda evs: seen.append(([e["seq"] for e in evs],
                                           len(lines(tmp_path)))))
    log.append(created())
    log.append(NodeHeartbeat(runId=RUN_ID, nodeId=NODE_A))
    log.append({"type": "node.log", "text": "x"})  # id, ts, runId filled in
    assert not (tmp_path / "events.jsonl").read_bytes()  # append does no I/O
    out = log.flush()
    assert [e["seq"] for e in out] == [1, 2, 3]
    assert seen == [([1, 2, 3], 3)]
    assert log.flush() == [] and log.last_seq == 3 and log.run_id == RUN_ID
    log.close()
    assert [e["seq"] for e in lines(tmp_path)] == [1, 2, 3]
    assert lines(tmp_path)[2]["runId"] == RUN_ID


def test_unsubscribe_and_failing_subscriber(tmp_path):
    log = EventLog.open(tmp_path, durability=Durability.NONE)
    got = []
    log.subscribe(lambda evs: 1 / 0)
    unsub = log.subscribe(got.extend)
    log.append(created())
    log.flush()
    unsub()
    log.append(ev("run.started"))
    log.flush()
    assert [e["seq"] for e in got] == [1]
    log.close()


def test_external_lines_are_absorbed_in_order(tmp_path):
    log = EventLog.open(tmp_path)
    log.append(created())
    log.flush()
    assert append_external(tmp_path / "events.jsonl", {"type": "bus.message",
                                                       "busType": "FACT"}) == 2
    got = []
    log.subscribe(got.extend)
    log.append(ev("run.started"))
    out = log.flush()
    assert [(e["seq"], e["type"]) for e in out] == [(2, "bus.message"), (3, "run.started")]
    assert got == out and out[0]["runId"] == RUN_ID
    append_external(tmp_path / "events.jsonl", {"type": "bus.message", "busType": "FACT"})
    assert [e["seq"] for e in log.absorb_external()] == [4]
    log.close()
    assert [e["seq"] for e in lines(tmp_path)] == [1, 2, 3, 4]


def test_concurrent_external_appender_process(tmp_path):
    n_ext = 150
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from desktop.store.eventlog import append_external
        for i in range({n_ext}):
            append_external(Path({str(tmp_path / "events.jsonl")!r}),
                            {{"type": "bus.message", "busType": "FACT", "message": str(i)}})
    """)
    log = EventLog.open(tmp_path)
    log.append(created())
    log.flush()
    proc = subprocess.Popen([sys.executable, "-c", script])
    mine = 0
    while proc.poll() is None or mine < 200:
        for _ in range(5):
            log.append(ev("node.progress", nodeId=NODE_A, message=str(mine)))
            mine += 1
        log.flush()
    assert proc.wait() == 0
    log.close()
    got = lines(tmp_path)
    seqs = [e["seq"] for e in got]
    assert seqs == list(range(1, len(got) + 1))
    assert sum(e["type"] == "bus.message" for e in got) == n_ext
    assert sum(e["type"] == "node.progress" for e in got) == mine
    assert [e["message"] for e in got if e["type"] == "bus.message"] == [
        str(i) for i in range(n_ext)]


def test_torn_tail_is_cut_and_reported(tmp_path):
    before = write_events(tmp_path, 5)
    with open(tmp_path / "events.jsonl", "ab") as fh:
        fh.write(b'{"seq":99,"type":"node.pro')
    log = EventLog.open(tmp_path)
    log.close()
    after = lines(tmp_path)
    assert after[:-1] == before
    rec = after[-1]
    assert rec["type"] == "log.recovered" and rec["problem"] == "torn_tail"
    assert rec["seq"] == before[-1]["seq"] + 1 and rec["length"] == 26
    assert rec["runId"] == RUN_ID


def test_unparsable_last_line_counts_as_torn(tmp_path):
    before = write_events(tmp_path, 3)
    with open(tmp_path / "events.jsonl", "ab") as fh:
        fh.write(b"garbage\n")
    EventLog.open(tmp_path).close()
    after = lines(tmp_path)
    assert after[:-1] == before and after[-1]["problem"] == "torn_tail"


def test_corrupt_middle_line_is_reported_once(tmp_path):
    write_events(tmp_path, 3)
    path = tmp_path / "events.jsonl"
    raw = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*raw[:2], b"\xff\xfe not json\n", *raw[2:]]))
    EventLog.open(tmp_path).close()
    EventLog.open(tmp_path).close()  # already reported: not again
    reports = [e for e in EventReader(tmp_path).iter_events() if e["type"] == "log.recovered"]
    assert [(r["problem"], r["offset"]) for r in reports] == [("corrupt_line", len(b"".join(
        raw[:2])))]


def test_empty_and_missing_files(tmp_path):
    (tmp_path / "events.jsonl").write_bytes(b"")
    log = EventLog.open(tmp_path)
    assert log.last_seq == 0 and log.problems == []
    log.close()
    fresh = EventLog.open(tmp_path / "new")
    assert (tmp_path / "new" / "events.jsonl").exists()
    fresh.close()


def test_bad_input_never_loses_written_events(tmp_path):
    before = write_events(tmp_path, 4)
    path = tmp_path / "events.jsonl"
    big_ok = orjson.dumps({"seq": before[-1]["seq"] + 1, **ev("node.log", text="x" * 10_000_000)})
    with open(path, "ab") as fh:
        fh.write(b"\n")  # empty line
        fh.write(b"[1, 2]\n{\"no\": \"seq\"}\nnot json at all\n")
        fh.write(b"y" * 10_000_000 + b"\n")  # a 10 MB garbage line
        fh.write(b'{"seq": 1000, "text": "\xc3\x28"}\n')  # invalid UTF-8
        fh.write(big_ok + b"\n")  # a valid 10 MB event
    log = EventLog.open(tmp_path)
    log.append(ev("run.completed"))
    log.close()
    reader = EventReader(tmp_path)
    got = list(reader.iter_events())
    assert got[: len(before)] == before
    assert got[len(before)]["text"] == "x" * 10_000_000
    kinds = [e["problem"] for e in got if e["type"] == "log.recovered"]
    assert kinds == ["corrupt_line"] * 6
    assert got[-1]["type"] == "run.completed"
    assert len(reader.problems) == 6  # the reader reports the same skips


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_cut_anywhere_recovers_a_prefix(tmp_path_factory, data):
    run_dir = tmp_path_factory.mktemp("cut")
    full = write_events(run_dir, 6, batch=2)
    raw = (run_dir / "events.jsonl").read_bytes()
    cut = data.draw(st.integers(0, len(raw)))
    (run_dir / "events.jsonl").write_bytes(raw[:cut])
    EventLog.open(run_dir).close()
    got = list(EventReader(run_dir).iter_events())
    kept = [e for e in got if e["type"] != "log.recovered"]
    assert kept == full[: len(kept)]
    assert len(kept) == raw[:cut].count(b"\n")  # every complete line survives
    torn = cut > 0 and raw[cut - 1: cut] != b"\n"
    assert [e["problem"] for e in got if e["type"] == "log.recovered"] == (
        ["torn_tail"] if torn else [])
    assert [e["seq"] for e in got] == list(range(1, len(got) + 1))


def test_unknown_event_types_survive(tmp_path):
    with EventLog.open(tmp_path) as log:
        log.append(created())
        log.append({"type": "from.the.future", "payload": {"deep": [1, 2]}})
    got = list(EventReader(tmp_path).iter_events())
    assert got[1]["type"] == "from.the.future" and got[1]["payload"] == {"deep": [1, 2]}


def test_external_appender_cuts_a_torn_tail(tmp_path):
    write_events(tmp_path, 2)
    with open(tmp_path / "events.jsonl", "ab") as fh:
        fh.write(b'{"seq":4')
    seq = append_external(tmp_path / "events.jsonl", {"type": "bus.message", "busType": "FACT"})
    got = lines(tmp_path)
    assert got[-2]["problem"] == "torn_tail" and got[-1]["seq"] == seq == got[-2]["seq"] + 1
