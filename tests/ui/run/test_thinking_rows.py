"""Thinking rows open in place in the transcript list (double-click or Space) and close again."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.ui.run.transcript_model import ExpandedRole, TranscriptModel
from desktop.ui.run.transcript_view import TranscriptView

RUN = "00000000-0000-4000-8000-000000000001"
THOUGHT = "\n".join(f"step {i}: consider option {i} carefully before acting" for i in range(8))


def ev(seq: int, kind: str, node: str = "n1", **fields) -> dict:
    return {"seq": seq, "id": f"e{seq}", "runId": RUN, "ts": "2026-01-01T00:00:00.000Z",
            "type": kind, "nodeId": node, **fields}


def _view(qtbot) -> TranscriptView:
    model = TranscriptModel()
    model.ingest([ev(1, "message.user", text="plan it"),
                  ev(2, "message.assistant.thinking.final", text=THOUGHT),
                  ev(3, "message.assistant.final", "n2", text="done")])
    view = TranscriptView(model)
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    qtbot.waitExposed(view)
    return view


def _double_click(qtbot, view: TranscriptView, row: int) -> None:
    # a real double-click: press and release, then the double-click on the same row
    pos = view.list.visualRect(view.model.index(row)).center()
    qtbot.mouseClick(view.list.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseDClick(view.list.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def _display(view: TranscriptView, row: int) -> str:
    return str(view.model.index(row).data(Qt.ItemDataRole.DisplayRole))


def test_double_click_opens_a_thought_in_place_and_again_closes_it(qtbot):
    view = _view(qtbot)
    base = view.list.rowHeight(1)
    assert "step 7" not in _display(view, 1)  # one line: the start of the thought
    _double_click(qtbot, view, 1)
    assert view.model.index(1).data(ExpandedRole)
    assert "step 0" in _display(view, 1) and "step 7" in _display(view, 1)
    assert view.list.rowHeight(1) >= 8 * view.list.fontMetrics().lineSpacing()
    assert view.list.rowHeight(0) == base  # the other rows keep one line
    _double_click(qtbot, view, 1)
    assert not view.model.index(1).data(ExpandedRole)
    assert view.list.rowHeight(1) == base
    assert "step 7" not in _display(view, 1)


def test_space_toggles_only_thinking_rows(qtbot):
    view = _view(qtbot)
    base = view.list.rowHeight(0)
    view.list.setFocus()
    view.list.setCurrentIndex(view.model.index(0))
    qtbot.keyClick(view.list, Qt.Key.Key_Space)
    assert view.list.rowHeight(0) == base and not view.model.expanded  # a user message
    view.list.setCurrentIndex(view.model.index(1))
    qtbot.keyClick(view.list, Qt.Key.Key_Space)
    assert view.model.index(1).data(ExpandedRole) and view.list.rowHeight(1) > base
    qtbot.keyClick(view.list, Qt.Key.Key_Space)
    assert view.list.rowHeight(1) == base


def test_an_opened_thought_stays_open_across_filters(qtbot):
    view = _view(qtbot)
    assert view.toggle_row(1)
    view.set_node("n1")  # rows are rebuilt; the thought is still row 1
    assert view.model.rowCount() == 2
    assert view.model.index(1).data(ExpandedRole)
    assert view.list.rowHeight(1) > view.list.rowHeight(0)
    view.set_category("thinking", False)
    assert view.model.rowCount() == 1
    assert view.list.rowHeight(0) == view.list.verticalHeader().defaultSectionSize()
