"""A best-of-N choice decided in the app's approval inbox: the attempts listed with what
they changed, a failed one not choosable, the chosen index sent, or the choice denied."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor

from desktop.ui import theme as themes
from desktop.ui.run.approval_inbox import ApprovalInbox
from desktop.ui.run.choice_dialog import ChoiceDialog
from desktop.ui.theme import DARK, LIGHT
from desktop.views.notices import ApprovalClosed


def request() -> dict:
    return {"approvalId": "c1", "nodeId": "n1", "kind": "choice", "choice": {
        "turnId": "t1", "attempts": [
            {"index": 1, "ok": False, "error": "exit code 2", "diffstat": ""},
            {"index": 2, "ok": True, "output": "used a regex", "commit": "ab" * 20,
             "diffHead": "+++ b/slug.py\n+import re\n",
             "diffstat": " slug.py | 4 ++++\n 1 file changed, 4 insertions(+)\n"},
            {"index": 3, "ok": True, "output": "split on spaces", "commit": "cd" * 20,
             "diffstat": " slug.py | 2 ++\n 1 file changed, 2 insertions(+)\n"}]}}


class Resolver:
    """Takes every decision at once and keeps it."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __call__(self, approval_id, status, args, reason, merge=None, choice=None) -> bool:
        self.calls.append((approval_id, status, choice))
        return True


def test_the_dialog_shows_the_attempts_and_sends_the_one_chosen(qtbot) -> None:
    resolver = Resolver()
    dialog = ChoiceDialog(request(), resolver, "Implementer")
    qtbot.addWidget(dialog)
    assert dialog.list.count() == 3
    assert dialog.list.currentRow() == 1  # the first that succeeded
    assert "used a regex" in dialog.detail.toPlainText()
    dialog.list.setCurrentRow(0)
    assert not dialog.choose_button.isEnabled()  # a failed attempt cannot win
    assert "cannot win" in dialog.detail.toPlainText()
    dialog.list.setCurrentRow(2)
    assert "split on spaces" in dialog.detail.toPlainText()
    dialog.choose()
    assert resolver.calls == [("c1", "approved", 3)]


def test_the_attempts_diffs_are_side_by_side(qtbot) -> None:
    from PySide6.QtWidgets import QPlainTextEdit

    dialog = ChoiceDialog(request(), Resolver(), "Implementer")
    qtbot.addWidget(dialog)
    titles = [group.title() for group in dialog.diffs]
    assert titles == ["Attempt 1 (failed)", "Attempt 2", "Attempt 3"]
    texts = [group.findChild(QPlainTextEdit).toPlainText() for group in dialog.diffs]
    assert texts == ["(no change)", "+++ b/slug.py\n+import re", "(no change)"]
    assert "bold" in dialog.diffs[1].styleSheet()  # the selected attempt's column
    dialog.list.setCurrentRow(2)
    assert "bold" in dialog.diffs[2].styleSheet() and not dialog.diffs[1].styleSheet()


def test_deny_sends_no_attempt(qtbot) -> None:
    resolver = Resolver()
    dialog = ChoiceDialog(request(), resolver, "Implementer")
    qtbot.addWidget(dialog)
    dialog.deny()
    assert resolver.calls == [("c1", "denied", None)]


def test_the_inbox_lists_a_choice_and_opens_its_dialog(qtbot) -> None:
    resolver = Resolver()
    inbox = ApprovalInbox(resolver)
    qtbot.addWidget(inbox)
    inbox.set_state({"nodes": {"n1": {"label": "Implementer"}},
                     "pendingApprovals": {"c1": request()}})
    assert inbox.row_texts()[0].startswith("Implementer: choose the attempt that goes on")
    inbox._quick("approved")  # A on a choice opens it: it needs an attempt
    assert isinstance(inbox.dialog, ChoiceDialog) and resolver.calls == []
    inbox.closed(ApprovalClosed("c1"))
    assert inbox.pending == {} and not inbox.dialog.isVisible()


def test_the_choose_button_names_the_selected_attempt_and_sits_apart_from_the_panes(
        qtbot) -> None:
    dialog = ChoiceDialog(request(), Resolver(), "Implementer")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.choose_button.text() == "&Choose attempt 2"  # the first that succeeded
    dialog.list.setCurrentRow(2)
    assert dialog.choose_button.text() == "&Choose attempt 3"
    dialog.list.setCurrentRow(0)
    assert dialog.choose_button.text() == "&Choose attempt 1"
    assert not dialog.choose_button.isEnabled()
    # both buttons at the right end of one row, neither under the first attempt's diff
    first_pane = dialog.diffs[0].geometry()
    for button in (dialog.choose_button, dialog.deny_button):
        assert button.geometry().left() > first_pane.right()
    assert dialog.deny_button.geometry().right() < dialog.choose_button.geometry().left()


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=lambda t: t.name)
def test_the_attempts_diffs_are_coloured_as_diffs_in_the_theme_shown(qtbot, qapp,
                                                                     theme) -> None:
    from PySide6.QtWidgets import QPlainTextEdit

    themes.apply(qapp, theme)  # the dialog is made with no window's theme at hand
    try:
        dialog = ChoiceDialog(request(), Resolver(), "Implementer")
        qtbot.addWidget(dialog)
        document = dialog.diffs[1].findChild(QPlainTextEdit).document()
        header, added = document.findBlockByNumber(0), document.findBlockByNumber(1)
        assert added.text() == "+import re"
        # highlighted once Qt gets to it
        qtbot.waitUntil(lambda: bool(added.layout().formats()))
        added_formats, header_formats = added.layout().formats(), header.layout().formats()
        assert added_formats[0].format.background().color() == QColor(theme.diff_add)
        assert header_formats[0].format.foreground().color() == QColor(theme.text)
    finally:
        themes.apply(qapp, LIGHT)
