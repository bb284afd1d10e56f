"""The Qt transcript model adapts the transcript rows: every change reaches Qt as it should.

The rows themselves (streams, tool calls, filters) are tested without Qt in tests/views.
"""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from desktop.ui.run.transcript_model import (
    CategoryRole,
    EventRole,
    ExpandedRole,
    MarkdownRole,
    SeqRole,
    TranscriptModel,
)

RUN = "00000000-0000-4000-8000-000000000001"
NODES = ["n1", "n2"]


def ev(seq: int, kind: str, node: str | None = "n1", **fields) -> dict:
    out = {"seq": seq, "id": f"e{seq}", "runId": RUN, "ts": "2026-01-01T00:00:00.000Z",
           "type": kind, **fields}
    if node:
        out["nodeId"] = node
    return out


def test_a_stream_is_one_row_that_changes_then_gives_way_to_the_final(qapp, qtmodeltester):
    model = TranscriptModel()
    qtmodeltester.check(model)
    inserted, changed, removed = [], [], []
    model.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    model.dataChanged.connect(lambda a, b: changed.append((a.row(), b.row())))
    model.rowsRemoved.connect(lambda _p, a, b: removed.append((a, b)))
    model.ingest([ev(1, "message.user", text="hi")])
    model.ingest([ev(2, "message.assistant.delta", text="Hel")])
    model.ingest([ev(3, "message.assistant.delta", text="lo")])
    assert model.data(model.index(1)) == "Hello" and changed == [(1, 1)]
    model.ingest([ev(4, "message.assistant.final", text="Hello")])
    assert inserted == [(0, 0), (1, 1), (1, 1)] and removed == [(1, 1)]
    assert model.data(model.index(1), EventRole)["type"] == "message.assistant.final"
    assert model.data(model.index(1), SeqRole) == 4
    assert model.data(model.index(1), CategoryRole) == "assistant"
    assert "Hello" in model.data(model.index(1), MarkdownRole)


def test_rows_and_roles_of_tool_calls_and_thoughts(qapp, qtmodeltester):
    model = TranscriptModel()
    model.ingest([ev(1, "tool.proposed", tool={"id": "t1", "name": "command",
                                               "args": {"cmd": "ls"}}),
                  ev(2, "tool.started", toolId="t1", ts="2026-01-01T00:00:01.000Z"),
                  ev(3, "tool.completed", toolId="t1", result={"ok": True, "output": "x"},
                     ts="2026-01-01T00:00:03.500Z"),
                  ev(4, "message.assistant.thinking.final", text="a\nb")])
    qtmodeltester.check(model)
    texts = [model.data(model.index(r)) for r in range(model.rowCount())]
    assert "command" in texts[0] and "completed" in texts[0] and "2.50s" in texts[0]
    assert texts[1].startswith("✓ command in 2.50s")
    changed = []
    model.dataChanged.connect(lambda a, b: changed.append(a.row()))
    assert model.toggle_expanded(2) and model.data(model.index(2), ExpandedRole)
    assert changed == [2]


def test_filters_reset_the_model_and_search_reports_its_matches(qapp, qtbot):
    model = TranscriptModel()
    model.ingest([ev(1, "message.user", "n1", text="alpha"),
                  ev(2, "message.user", "n2", text="beta"),
                  ev(3, "message.assistant.final", "n1", text="gamma beta")])
    with qtbot.waitSignal(model.modelReset):
        model.set_filter(node_id="n2")
    assert model.rowCount() == 1
    with qtbot.waitSignal(model.searchFinished) as finished:
        model.set_filter(search="BETA")
    assert finished.args == [2] and not model.searching
    assert [model.data(model.index(r), EventRole)["seq"]
            for r in range(model.rowCount())] == [2, 3]


def test_file_model_opens_before_indexing_and_filters_after(qapp, qtbot, tmp_path):
    events = [ev(i, "message.assistant.delta" if i % 3 else "message.user",
                 NODES[i % 2], text=f"t{i}") for i in range(1, 2001)]
    (tmp_path / "events.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    model = TranscriptModel.open_file(tmp_path / "events.jsonl")
    assert model.indexing and model.rowCount() == 2000  # every event, unfiltered
    assert model.data(model.index(1999), Qt.ItemDataRole.DisplayRole) == "t2000"
    with qtbot.waitSignal(model.indexingChanged, timeout=10000) as done:
        pass
    assert done.args == [False] and not model.indexing
    assert model.rowCount() == len([e for e in events if e["type"] == "message.user"])
    model.close()


KINDS = ["message.user", "message.assistant.delta", "message.assistant.final",
         "tool.proposed", "node.progress", "message.assistant.thinking.delta"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from(NODES)), max_size=60),
       st.lists(st.integers(1, 10), max_size=10))
def test_live_batches_keep_the_qt_model_consistent(qapp, items, cuts):
    """Whatever the batches, Qt's own model tester finds the notices consistent."""
    from pytestqt.modeltest import ModelTester

    events = [ev(i + 1, kind, node, text="x", tool={"id": str(i), "name": "c", "args": {}})
              for i, (kind, node) in enumerate(items)]
    model = TranscriptModel()
    tester = ModelTester(None)
    tester.check(model, force_py=True)
    pos = 0
    for cut in [*cuts, len(events)]:
        model.ingest(events[pos:pos + cut])
        pos += cut
    live = [model.position(r) for r in range(model.rowCount())]
    model.set_filter()
    assert [model.position(r) for r in range(model.rowCount())] == live
    tester._cleanup()  # what the qtmodeltester fixture does at its end
