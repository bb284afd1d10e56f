"""Copying a log prefix under a new run id, and folding a fork's lineage."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from storekit import RUN_ID, created, ev

from desktop.store.eventlog import encode_event
from desktop.store.fork_copy import ForkCopyError, copy_log_prefix
from desktop.store.reducer import apply_event

NEW = "99999999-8888-4777-8666-555555555555"


def _write(folder: Path, events: list[dict], junk: bytes = b"") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [encode_event({**e, "seq": i}) for i, e in enumerate(events, start=1)]
    (folder / "events.jsonl").write_bytes(lines[0] + junk + b"".join(lines[1:]))


def _read(folder: Path) -> list[dict]:
    return [orjson.loads(line) for line in (folder / "events.jsonl").read_bytes().splitlines()]


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=60), st.integers(1, 4))
def test_only_run_id_keys_change_even_when_text_quotes_one(tmp_path_factory, text: str,
                                                           upto: int) -> None:
    folder = tmp_path_factory.mktemp("src")
    quoted = f'{text} "runId":"{RUN_ID}" \\"runId\\":\\"{RUN_ID}\\"'
    events = [created(), ev("message.user", nodeId="n", text=quoted),
              ev("artifact.created", artifact={"runId": RUN_ID, "kind": "log"}),
              ev("run.completed")]
    _write(folder, events)
    out = tmp_path_factory.mktemp("dst") / "fork"
    assert copy_log_prefix(folder, out, upto, NEW) == upto
    copied = _read(out)
    assert [e["seq"] for e in copied] == list(range(1, upto + 1))
    assert all(e["runId"] == NEW for e in copied)
    assert copied[0]["forkedFrom"] == {"runId": RUN_ID, "seq": upto}
    assert all(n["runId"] == NEW for n in copied[0]["nodes"].values())
    if upto >= 2:
        assert copied[1]["text"] == quoted
    if upto >= 3:
        assert copied[2]["artifact"]["runId"] == NEW
    for original, copy in zip(events, copied, strict=False):
        assert {k: v for k, v in copy.items() if k not in ("runId", "seq", "forkedFrom",
                                                           "nodes", "artifact")} == \
            {k: v for k, v in original.items() if k not in ("runId", "nodes", "artifact")}


def test_corrupt_lines_are_left_out_as_readers_leave_them_out(tmp_path: Path) -> None:
    _write(tmp_path / "src", [created(), ev("run.started")], junk=b"{not json\n")
    assert copy_log_prefix(tmp_path / "src", tmp_path / "dst", 2, NEW) == 2
    assert [e["type"] for e in _read(tmp_path / "dst")] == ["run.created", "run.started"]


def test_a_log_that_is_too_short_or_has_no_run_cannot_be_copied(tmp_path: Path) -> None:
    _write(tmp_path / "short", [created()])
    with pytest.raises(ForkCopyError, match="ends at seq 1, before seq 2"):
        copy_log_prefix(tmp_path / "short", tmp_path / "a", 2, NEW)
    _write(tmp_path / "norun", [ev("run.started")])
    with pytest.raises(ForkCopyError, match=r"not a run\.created"):
        copy_log_prefix(tmp_path / "norun", tmp_path / "b", 1, NEW)


def test_the_fold_records_lineage_and_the_fork_time() -> None:
    state = apply_event(None, {**created(forkedFrom={"runId": NEW, "seq": 5}), "seq": 1})
    assert state["forkedFrom"] == {"runId": NEW, "seq": 5}
    forked = ev("run.forked", forkedFrom={"runId": NEW, "seq": 5}, ts="2027-02-02T00:00:00Z")
    state = apply_event(state, {**forked, "seq": 6})
    assert state["createdAt"] == "2027-02-02T00:00:00Z" and state["lastSeq"] == 6
    bad = apply_event(dict(state), {**ev("run.forked", forkedFrom={"seq": -1}), "seq": 7})
    assert bad["forkedFrom"] == {"runId": NEW, "seq": 5} and bad["lastSeq"] == 6
