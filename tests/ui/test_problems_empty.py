"""The Problems panel says so when there are none (it was blank, as if broken), and the
text goes once a problem is listed; like the Approvals inbox's, it reads in both themes."""

from __future__ import annotations

import pytest
from contrast import contrast
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel

from desktop.graph.errors import Problem
from desktop.ui import theme
from desktop.ui.run.approval_inbox import ApprovalInbox
from desktop.ui.window import EditorWindow


def _ink(label: QLabel) -> float:
    """The contrast of ``label``'s text with what it is drawn on, as styled."""
    label.ensurePolished()
    assert label.autoFillBackground() or label.parentWidget().autoFillBackground()
    return contrast(label.palette().color(QPalette.ColorRole.WindowText),
                    label.palette().color(label.backgroundRole()))


def test_no_problems_says_so_and_a_problem_replaces_the_text(example_window) -> None:
    panel = example_window.problems
    panel.refresh()
    assert panel.problems == []
    assert panel.empty.isVisibleTo(panel)
    assert panel.empty.text().startswith("No problems")
    panel.set_left_out([Problem("nodes[0].config", "an unknown field was left out")])
    assert panel.topLevelItemCount() == 1
    assert not panel.empty.isVisibleTo(panel)
    panel.set_left_out([])
    assert panel.empty.isVisibleTo(panel)


@pytest.mark.parametrize("look", [theme.LIGHT, theme.DARK], ids=lambda t: t.name)
def test_empty_texts_read_in_both_themes(qapp, qtbot, example_window: EditorWindow,
                                         look) -> None:
    example_window.apply_theme(look)
    try:
        panel = example_window.problems
        assert _ink(panel.empty) >= 4.5
        inbox = ApprovalInbox()
        qtbot.addWidget(inbox)
        assert _ink(inbox.empty) >= 4.5  # its mid grey on the window was 1.3:1
    finally:
        theme.apply(qapp, theme.LIGHT)
