"""A long status bar message (a paused run's reason: a worktree path and the git
command to go on) is not cut off: its start and its end show on one line, the whole of
it is the tooltip, and a click opens it whole."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox

from desktop.ui.status_message import StatusMessage

REASON = ("paused: merging canvas/4f2a9c1e/right into canvas/4f2a9c1e/lead conflicts in "
          "src/app/handlers.py, src/app/models.py; the worktree "
          "/home/user/.local/share/agent-canvas/runs/4f2a9c1e/worktrees/lead holds them: "
          "resolve them there, then run `git -C /home/user/.local/share/agent-canvas/runs/"
          "4f2a9c1e/worktrees/lead commit --no-edit` and press Resume to go on")


def shown_message(window) -> QLabel:
    """The label of the status bar that shows the current message."""
    bar = window.statusBar()
    [label] = [w for w in bar.findChildren(QLabel) if w.isVisible()
               and w.text() and w.text()[:20] == bar.currentMessage()[:20]]
    return label


def test_a_long_message_shows_its_start_and_its_end_and_the_whole_on_hover(
        editor_window, qtbot) -> None:
    editor_window.resize(1280, 800)
    editor_window.message(REASON, 60_000)
    label = shown_message(editor_window)
    bar = editor_window.statusBar()
    assert label.text().startswith("paused: merging") and \
        label.text().endswith("press Resume to go on")  # the way on is never cut off
    assert "…" in label.text() and label.toolTip() == REASON
    fits = label.fontMetrics().horizontalAdvance(label.text())
    assert fits <= label.contentsRect().width()
    assert label.geometry().right() < bar.width()  # in the bar, on its one line
    # the permanent labels (problems, counts, zoom) keep their place on the right
    assert editor_window.zoom_label.isVisible()
    assert label.geometry().right() <= editor_window.zoom_label.geometry().left()

    qtbot.mouseClick(label, Qt.MouseButton.LeftButton)
    [box] = [b for b in editor_window.findChildren(QMessageBox) if b.isVisible()]
    assert box.text() == REASON
    assert box.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    box.close()

    editor_window.statusBar().clearMessage()
    assert label.text() == "" and label.toolTip() == ""


def test_a_short_message_shows_whole_with_no_tooltip(editor_window) -> None:
    editor_window.message("Saved.", 60_000)
    label = shown_message(editor_window)
    assert label.text() == "Saved." and label.toolTip() == ""


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.characters(codec="ascii", categories=("L", "N", "P", "Zs")),
                    max_size=400),
       width=st.integers(min_value=40, max_value=900))
def test_any_message_at_any_width_keeps_one_line_and_both_ends(
        qtbot, text: str, width: int) -> None:
    label = StatusMessage()
    qtbot.addWidget(label)
    label.resize(width, 20)
    label.show_message(text)
    line = " ".join(text.split())
    assert "\n" not in label.text()
    if label.elided():
        assert label.toolTip() == line
        assert label.fontMetrics().horizontalAdvance(label.text()) <= \
            label.contentsRect().width()
    else:
        assert label.text() == line and label.toolTip() == ""
