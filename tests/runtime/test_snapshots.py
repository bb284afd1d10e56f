"""The engine's background state.json writer never lets an older snapshot win."""

import logging
from pathlib import Path

import orjson

from desktop.runtime.snapshots import SnapshotWriter


def test_background_then_final_snapshot_leaves_the_final_one(tmp_path: Path):
    writer = SnapshotWriter(tmp_path)
    state = {"id": "x", "lastSeq": 1, "nodes": {}}
    writer.write_soon(state)
    state["lastSeq"] = 2  # the fold goes on: the background copy was taken before
    writer.write_soon(state)
    state["lastSeq"] = 3
    writer.write_now(state)
    writer.close()
    assert orjson.loads((tmp_path / "state.json").read_bytes())["lastSeq"] == 3


def test_background_snapshot_is_the_state_when_asked(tmp_path: Path):
    writer = SnapshotWriter(tmp_path)
    state = {"id": "x", "lastSeq": 7}
    writer.write_soon(state)
    state["lastSeq"] = 8
    writer.wait()
    assert orjson.loads((tmp_path / "state.json").read_bytes())["lastSeq"] == 7
    writer.close()


def test_a_failed_background_write_does_not_raise(tmp_path: Path, caplog):
    writer = SnapshotWriter(tmp_path / "missing" / "file-not-a-dir")
    (tmp_path / "missing").write_text("a file where the folder should be")
    with caplog.at_level(logging.WARNING, logger="desktop.runtime.snapshots"):
        writer.write_soon({"id": "x"})
        writer.close()  # joins the worker, so its failure has been reported
    failures = [r.getMessage() for r in caplog.records
                if r.getMessage().startswith("state.json snapshot failed")]
    assert len(failures) == 1, caplog.text
    assert (tmp_path / "missing").read_text() == "a file where the folder should be"
