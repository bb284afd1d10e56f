"""Full-text search runs in slices over the log: matches appear as found, none is missed.

The byte search itself is tested without Qt in tests/views/test_log_search.py.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from desktop.ui.run.transcript_model import EventRole, TranscriptModel
from desktop.views import search as transcript_search

RUN = "00000000-0000-4000-8000-000000000001"


def _event(seq: int, text: str, kind: str = "message.assistant.final") -> dict:
    return {"seq": seq, "id": f"e{seq}", "runId": RUN, "ts": "2026-01-01T00:00:00.000Z",
            "type": kind, "nodeId": f"n{seq % 3}", "text": text}


def _write(path: Path, events: list[dict]) -> None:
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))


def _text(seq: int) -> str:
    return f"reply {seq} with the Needle inside" if seq % 37 == 0 else f"plain reply {seq}"


def test_search_shows_matches_slice_by_slice_and_ends_complete(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(transcript_search, "SLICE_BYTES", 16384)
    path = tmp_path / "events.jsonl"
    _write(path, [_event(seq, _text(seq)) for seq in range(1, 5001)])
    model = TranscriptModel.open_file(path)
    model.store.index_step(1 << 30)
    model._index_slice()
    model.search_slice_seconds = 0  # one slice per tick
    expected = [seq - 1 for seq in range(1, 5001) if seq % 37 == 0]
    counts = []
    model.rowsInserted.connect(lambda *_: counts.append(model.rowCount()))
    with qtbot.waitSignal(model.searchFinished, timeout=20000) as finished:
        model.set_filter(search="needle")
        assert model.searching  # the log is still being searched after the first slice
        assert 0 < model.rowCount() < len(expected)  # the first matches are already shown
    assert finished.args == [len(expected)]
    assert not model.searching
    assert len(counts) > 1 and counts == sorted(counts)  # rows were added as found
    assert [model.position(r) for r in range(model.rowCount())] == expected
    model.close()


def test_live_events_during_and_after_a_search_are_matched(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(transcript_search, "SLICE_BYTES", 16384)
    path = tmp_path / "events.jsonl"
    events = [_event(seq, _text(seq)) for seq in range(1, 3001)]
    _write(path, events)
    model = TranscriptModel.open_file(path)
    model.store.index_step(1 << 30)
    model._index_slice()
    model.search_slice_seconds = 0
    model.set_filter(search="needle")
    assert model.searching
    # the engine writes an event, then the model is fed it: mid-search and afterwards
    live = [_event(3001, "live NEEDLE one"), _event(3002, "no match")]
    with open(path, "ab") as fh:
        fh.write(b"".join(orjson.dumps(e) + b"\n" for e in live))
    model.ingest(live)
    qtbot.waitUntil(lambda: not model.searching, timeout=20000)
    after = [_event(3003, "a needle later"), _event(3004, "nothing")]
    with open(path, "ab") as fh:
        fh.write(b"".join(orjson.dumps(e) + b"\n" for e in after))
    model.ingest(after)
    seqs = [model.index(r).data(EventRole)["seq"] for r in range(model.rowCount())]
    assert seqs == [s for s in range(1, 3001) if s % 37 == 0] + [3001, 3003]
    model.set_filter(search="")
    assert model.rowCount() == 3004
    model.close()


def test_a_new_search_replaces_the_running_one(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(transcript_search, "SLICE_BYTES", 16384)
    path = tmp_path / "events.jsonl"
    _write(path, [_event(seq, _text(seq)) for seq in range(1, 3001)])
    model = TranscriptModel.open_file(path)
    model.store.index_step(1 << 30)
    model._index_slice()
    model.search_slice_seconds = 0
    model.set_filter(search="needle")
    model.set_filter(search="plain reply 2999")
    model.finish_search()
    seqs = [model.index(r).data(EventRole)["seq"] for r in range(model.rowCount())]
    assert seqs == [2999]
    model.close()
