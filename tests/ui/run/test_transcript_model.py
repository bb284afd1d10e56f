"""The transcript model: every event is a row (or part of one), filters and search work."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.ui.run.transcript_model import EventRole, TranscriptModel

RUN = "00000000-0000-4000-8000-000000000001"
NODES = ["n1", "n2"]


def ev(seq: int, kind: str, node: str | None = "n1", **fields) -> dict:
    out = {"seq": seq, "id": f"e{seq}", "runId": RUN, "ts": "2026-01-01T00:00:00.000Z",
           "type": kind, **fields}
    if node:
        out["nodeId"] = node
    return out


def test_deltas_stream_into_one_row_replaced_by_the_final(qapp):
    model = TranscriptModel()
    model.ingest([ev(1, "message.user", text="hi")])
    model.ingest([ev(2, "message.assistant.delta", text="Hel")])
    assert model.rowCount() == 2
    model.ingest([ev(3, "message.assistant.delta", text="lo")])
    assert model.rowCount() == 2
    assert model.data(model.index(1)) == "Hello"
    model.ingest([ev(4, "message.assistant.final", text="Hello")])
    assert model.rowCount() == 2
    assert model.data(model.index(1), EventRole)["type"] == "message.assistant.final"


def test_stream_and_final_in_one_batch_leave_one_row(qapp):
    model = TranscriptModel()
    model.ingest([ev(1, "message.assistant.thinking.delta", text="a"),
                  ev(2, "message.assistant.thinking.delta", text="b"),
                  ev(3, "message.assistant.thinking.final", text="ab")])
    assert [model.data(model.index(r), EventRole)["seq"] for r in range(model.rowCount())] == [3]


def test_filter_by_node_type_and_text(qapp):
    model = TranscriptModel()
    model.ingest([ev(1, "message.user", "n1", text="alpha"),
                  ev(2, "message.user", "n2", text="beta"),
                  ev(3, "tool.proposed", "n2", tool={"id": "t", "name": "command",
                                                      "args": {"cmd": "ls"}}),
                  ev(4, "message.assistant.final", "n1", text="gamma beta")])
    model.set_filter(node_id="n2")
    assert model.rowCount() == 2
    model.set_filter(types={"tool.proposed"})
    assert model.rowCount() == 1
    model.set_filter(search="BETA")
    assert [model.data(model.index(r), EventRole)["seq"]
            for r in range(model.rowCount())] == [2, 4]
    model.set_filter()
    assert model.rowCount() == 4


def test_tool_rows_show_status_and_result(qapp):
    model = TranscriptModel()
    model.ingest([ev(1, "tool.proposed", tool={"id": "t1", "name": "command",
                                               "args": {"cmd": "ls"}}),
                  ev(2, "tool.started", toolId="t1", ts="2026-01-01T00:00:01.000Z"),
                  ev(3, "tool.completed", toolId="t1", result={"ok": True, "output": "x"},
                     ts="2026-01-01T00:00:03.500Z")])
    texts = [model.data(model.index(r)) for r in range(model.rowCount())]
    assert "command" in texts[0] and "completed" in texts[0] and "2.50s" in texts[0]
    assert texts[1].startswith("✓ command in 2.50s")


def _write(path, events):
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))


def test_file_model_opens_before_indexing_and_filters_after(qapp, qtbot, tmp_path):
    events = [ev(i, "message.assistant.delta" if i % 3 else "message.user",
                 NODES[i % 2], text=f"t{i}") for i in range(1, 2001)]
    _write(tmp_path / "events.jsonl", events)
    model = TranscriptModel.open_file(tmp_path / "events.jsonl")
    assert model.indexing and model.rowCount() == 2000  # every event, unfiltered
    assert model.event_at(1999)["seq"] == 2000
    qtbot.waitUntil(lambda: not model.indexing)
    assert model.rowCount() == len([e for e in events if e["type"] == "message.user"])
    model.close()


def test_seq_may_be_the_last_key(qapp, qtbot, tmp_path):
    events = [{"type": "message.user", "nodeId": "n1", "text": f"m{i}", "seq": i}
              for i in range(1, 600)]
    _write(tmp_path / "events.jsonl", events)
    model = TranscriptModel.open_file(tmp_path / "events.jsonl")
    assert model.rowCount() == 599
    assert model.event_at(450)["text"] == "m451"
    qtbot.waitUntil(lambda: not model.indexing)
    assert model.rowCount() == 599
    model.close()


KINDS = ["message.user", "message.assistant.delta", "message.assistant.final",
         "tool.proposed", "node.progress", "message.assistant.thinking.delta"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from(NODES)), max_size=60),
       st.lists(st.integers(1, 10), max_size=10))
def test_live_batches_match_a_fresh_filter(qapp, items, cuts):
    """However events are batched, the rows equal what a full refilter would show."""
    events = [ev(i + 1, kind, node, text="x", tool={"id": str(i), "name": "c", "args": {}})
              for i, (kind, node) in enumerate(items)]
    model = TranscriptModel()
    pos = 0
    for cut in [*cuts, len(events)]:
        model.ingest(events[pos:pos + cut])
        pos += cut
    model.ingest(events[pos:])
    live = [model.position(r) for r in range(model.rowCount())]
    # streaming rows are the first delta of a message that has no final yet
    model.set_filter()
    assert [model.position(r) for r in range(model.rowCount())] == live
    assert model.store.count == len(events)
