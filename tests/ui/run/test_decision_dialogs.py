"""Every approval dialog (a tool call, a merge, a best-of-N choice) sends one decision at
a time through the service: its buttons are off until the answer comes, it closes when
the decision is taken, and says so, buttons back on, when it is refused or fails."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
import test_choice_gui
import test_merge_gui
from PySide6.QtWidgets import QPushButton

from desktop.ui.run.approvals import ApprovalDialog
from desktop.ui.run.choice_dialog import ChoiceDialog
from desktop.ui.run.decision_dialog import DecisionDialog
from desktop.ui.run.merge_dialog import MergeDialog

TOOL = {"approvalId": "ap1", "nodeId": "n1",
        "tool": {"id": "t1", "name": "command", "args": {"cmd": "make build"}}}


def _dialogs(tmp_path: Path) -> dict[str, Callable[[object], DecisionDialog]]:
    return {
        "tool": lambda resolver: ApprovalDialog(TOOL, resolver, "Implementer"),
        "merge": lambda resolver: MergeDialog(test_merge_gui.request(tmp_path), resolver,
                                              "Lead"),
        "choice": lambda resolver: ChoiceDialog(test_choice_gui.request(), resolver,
                                                "Implementer"),
    }


def _deny_button(dialog: DecisionDialog) -> QPushButton:
    return dialog.deny_button  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["tool", "merge", "choice"])
@pytest.mark.parametrize("answer", ["accepted", "refused", "failed"])
def test_a_decision_waits_for_the_service_then_closes_or_says_why(
        qtbot, qloop, until, tmp_path: Path, kind: str, answer: str) -> None:
    (tmp_path / "a.txt").write_text("<<<<<<< HEAD\nleft\n=======\nright\n>>>>>>> right\n")
    replies: list[asyncio.Future] = []

    def resolver(*_args: object, **_kwargs: object) -> asyncio.Future:
        replies.append(qloop.create_future())
        return replies[-1]

    dialog = _dialogs(tmp_path)[kind](resolver)
    qtbot.addWidget(dialog)
    dialog.show()
    decided: list[tuple[str, str]] = []
    dialog.decided.connect(lambda approval_id, status: decided.append((approval_id, status)))

    async def scenario() -> None:
        _deny_button(dialog).click()
        assert len(replies) == 1
        assert not _deny_button(dialog).isEnabled()  # one decision at a time
        _deny_button(dialog).click()
        assert len(replies) == 1
        if answer == "failed":
            replies[0].set_exception(ConnectionError("the service went away"))
        else:
            replies[0].set_result(answer == "accepted")
        await until(lambda: bool(decided) or bool(dialog.error.text()))

    qloop.run_until_complete(scenario())
    if answer == "accepted":
        assert decided == [(dialog.approval_id, "denied")]
        assert not dialog.isVisible()
    else:
        assert decided == []
        assert dialog.error.text() == dialog.refused_text
        assert _deny_button(dialog).isEnabled() and dialog.isVisible()


@pytest.mark.parametrize("kind", ["tool", "merge", "choice"])
@pytest.mark.parametrize("look", ["light", "dark"])
def test_a_dialogs_error_line_reads_in_either_theme(qtbot, qapp, tmp_path, kind, look):
    """"… still has conflict markers" and a refused decision were a fixed dark red,
    2.8:1 on the dark theme's window: the line now reads (4.5:1) in both themes."""
    from contrast import contrast
    from PySide6.QtGui import QColor

    from desktop.ui import theme as themes

    theme = themes.DARK if look == "dark" else themes.LIGHT
    themes.apply(qapp, theme)
    try:
        dialog = _dialogs(tmp_path)[kind](lambda *a, **k: False)
        qtbot.addWidget(dialog)
        colour = dialog.error.styleSheet().split("color:")[1].strip(" ;")
        assert contrast(QColor(colour), QColor(theme.window)) >= 4.5, colour
    finally:
        themes.apply(qapp, themes.LIGHT)
