"""At the smallest size the window allows, the run toolbar still shows the run's state and
the Approvals badge (they were the first things to go behind its »), a long state is cut
to its room rather than pushing the badge out, and a node card's pill keeps its time
whole ("awaiting approval · 11…" hid the minutes that change)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from unittest.mock import MagicMock

from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import QRect, QRectF, QSize
from PySide6.QtGui import QFontMetricsF
from shiboken6 import isValid

from desktop.ui.canvas.node_item import NODE_W
from desktop.ui.canvas.status_badge import PILL_H, STATUS_COLORS, StatusBadge, _pill_font, ago
from desktop.ui.tabs import tabbed
from desktop.ui.window import EditorWindow
from desktop.ui.window_size import LEAST_SIZE, least_size

SCREEN = QRect(0, 0, 1920, 1080)
LONG_STATE = {"status": "running", "mode": "INTERACTIVE", "stall": {"reason": "loop"},
              "nodes": {"n1": {"label": "The implementer with a very long name indeed"}}}


def _in_sight(bar, widget) -> bool:
    """True when ``widget`` shows in ``bar`` itself, not behind its » button."""
    return widget.isVisible() and bar.rect().contains(widget.geometry())


def _state_and_badge_shown(editor: EditorWindow) -> None:
    controls = editor.run_panels.controls
    badge = controls.widgetForAction(editor.run_panels.approvals.badge)
    assert badge is not None
    assert _in_sight(controls, controls.status_label), controls.status_label.text()
    assert _in_sight(controls, badge)


def _at_least_size(qtbot, window) -> None:
    window.setMinimumSize(least_size(SCREEN))  # a common screen (the test one is smaller)
    window.show()
    qtbot.waitExposed(window)
    window.resize(QSize(100, 100))  # as small as it goes
    qtbot.waitUntil(lambda: window.size() == window.minimumSize())
    assert window.width() == LEAST_SIZE.width()


def test_the_least_size_fits_a_small_screen() -> None:
    assert least_size(SCREEN) == LEAST_SIZE
    assert least_size(QRect(0, 0, 800, 500)) == QSize(800, 500)
    assert least_size(None) == LEAST_SIZE


def test_a_window_cannot_be_made_smaller_than_its_least_size(qtbot) -> None:
    win = EditorWindow()
    qtbot.addWidget(win)
    screen = win.screen().availableGeometry()
    assert win.minimumSize() == least_size(screen)
    win.file.close()


def test_a_standalone_window_at_its_least_size_shows_the_state_and_badge(qtbot) -> None:
    win = EditorWindow()
    qtbot.addWidget(win)
    try:
        _at_least_size(qtbot, win)
        _state_and_badge_shown(win)
        win.run_panels.controls.set_state(LONG_STATE, live=True, next_node="n1")
        qtbot.waitUntil(lambda: "next" in win.run_panels.controls.status_label.toolTip())
        _state_and_badge_shown(win)  # a long state is cut, the badge stays
        assert "very long name indeed" in win.run_panels.controls.status_label.toolTip()
    finally:
        if isValid(win):
            win.file.close()


def test_a_tabbed_window_at_its_least_size_shows_the_state_and_badge(qtbot) -> None:
    editor = EditorWindow()
    host = tabbed(editor)
    qtbot.addWidget(host)  # the window, closed with its tab at the end
    _at_least_size(qtbot, host)
    qtbot.waitUntil(lambda: editor.run_panels.controls.status_label.isVisible())
    _state_and_badge_shown(editor)


def _pill_drawn(badge: StatusBadge) -> str:
    """The text ``badge`` (no summary, no branch) draws in its pill: the last it draws,
    after its icon's ``?`` or ``!``."""
    painter = MagicMock()
    badge.paint(painter, None)
    return [c.args[2] for c in painter.drawText.call_args_list if len(c.args) == 3][-1]


@given(st.sampled_from(sorted(STATUS_COLORS)), st.integers(0, 10 * 24 * 3600))
def test_a_pill_keeps_its_time_whole(qapp, status: str, seconds: int) -> None:
    now = datetime(2025, 1, 1, 12, tzinfo=UTC)
    badge = StatusBadge(QRectF(0, 0, NODE_W, 60))
    badge.clock = lambda: now
    then = (now - timedelta(seconds=seconds)).isoformat()
    badge.set_status(status, "", then)
    shown = _pill_drawn(badge)
    room = NODE_W - PILL_H - 10  # the pill's room for text on the card
    assert QFontMetricsF(_pill_font()).horizontalAdvance(shown) <= room
    assert shown.endswith(f" · {ago(then, lambda: now)}")
    assert shown.startswith(status[:3])
