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
