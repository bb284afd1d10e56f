"""An empty canvas says how to add the first node: shown on a new workflow, gone with the
first node, back when the last one is undone, and readable on the canvas in both themes."""

from __future__ import annotations

import pytest
from contrast import contrast
from PySide6.QtGui import QColor

from desktop.ui.canvas.empty_hint import TEXT
from desktop.ui.theme import DARK, LIGHT, Theme


def test_the_hint_shows_until_the_first_node_and_after_the_last(editor_window, qtbot) -> None:
    hint = editor_window.empty_hint
    assert hint.text() == TEXT and "Add Node" in TEXT and "New from Template" in TEXT
    qtbot.waitUntil(hint.isVisible)
    editor_window.editor.add_node("planner")
    qtbot.waitUntil(lambda: not hint.isVisible())
    editor_window.actions_["undo"].trigger()
    qtbot.waitUntil(hint.isVisible)


def test_an_open_workflow_has_no_hint(example_window, qtbot) -> None:
    qtbot.waitUntil(lambda: not example_window.empty_hint.isVisible())


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=lambda t: t.name)
def test_the_hint_reads_on_the_canvas(theme: Theme) -> None:
    assert contrast(QColor(theme.muted), QColor(theme.canvas)) >= 4.5
