"""No dialog can be dragged down to a sliver: each keeps at least 420 x 160 px (more when
its layout needs it, and a minimum of its own), and a short question's note no longer
wraps into a narrow column of a message box."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import test_choice_gui
import test_merge_gui
from PySide6.QtWidgets import QDialog, QMessageBox

from desktop.ui.close_dialog import ClosingDialog, LiveRun, stop_question
from desktop.ui.help_dialog import ShortcutsDialog
from desktop.ui.run.approvals import ApprovalDialog
from desktop.ui.run.budget_banner import RaiseLimitDialog
from desktop.ui.run.choice_dialog import ChoiceDialog
from desktop.ui.run.merge_dialog import MergeDialog
from desktop.ui.run.stall_banner import InstructionsDialog
from desktop.ui.template_gallery import TemplateGallery
from desktop.views.budget_meter import Overrun

TOOL = {"approvalId": "ap1", "nodeId": "n1",
        "tool": {"id": "t1", "name": "command", "args": {"cmd": "make build"}}}
LIVE = LiveRun("Approve a command", "dbc9d8bd-0000-4000-8000-000000000000", 1)


def _never(*_args: object, **_kwargs: object) -> bool:
    return False


DIALOGS: dict[str, Callable[[Path, object], QDialog]] = {
    "shortcuts": lambda _tmp, window: ShortcutsDialog(window),
    "templates": lambda _tmp, _window: TemplateGallery(),
    "closing": lambda _tmp, _window: ClosingDialog([], [LIVE], quitting=True),
    "instructions": lambda _tmp, _window: InstructionsDialog("Lead", "do this"),
    "budget": lambda _tmp, _window: RaiseLimitDialog(
        "the run", Overrun(None, "maxTokens", 1000, 1200)),
    "approval": lambda _tmp, _window: ApprovalDialog(TOOL, _never, "Implementer"),
    "merge": lambda tmp, _window: MergeDialog(test_merge_gui.request(tmp), _never, "Lead"),
    "choice": lambda _tmp, _window: ChoiceDialog(test_choice_gui.request(), _never, "Lead"),
}


@pytest.mark.parametrize("name", sorted(DIALOGS))
def test_a_dialog_cannot_be_made_a_sliver(qtbot, editor_window, tmp_path, name) -> None:
    (tmp_path / "a.txt").write_text("<<<<<<< HEAD\nleft\n=======\nright\n>>>>>>> right\n")
    dialog = DIALOGS[name](tmp_path, editor_window)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.resize(40, 20)  # dragged as small as it goes
    qtbot.waitUntil(lambda: dialog.width() < 1000 or dialog.height() < 700)
    assert dialog.width() >= 420 and dialog.height() >= 160, dialog.size()
    hint = dialog.minimumSizeHint()
    assert dialog.width() >= hint.width() and dialog.height() >= hint.height()


def test_a_short_question_reads_on_wide_lines(qtbot, editor_window) -> None:
    box = stop_question(editor_window, "Review", lambda: None)
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)
    assert isinstance(box, QMessageBox)
    assert box.width() >= 400, box.size()  # its note wrapped at 263 px
