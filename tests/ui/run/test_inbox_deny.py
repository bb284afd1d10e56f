"""D in the Approvals inbox asks for a reason before it denies; A approves at once."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.ui.run.approval_inbox import ApprovalInbox
from desktop.ui.run.approvals import ApprovalDialog

REQUEST = {"type": "approval.requested", "approvalId": "ap1", "nodeId": "n1",
           "tool": {"id": "t1", "name": "command", "args": {"cmd": "rm -rf build"}}}


class Resolver:
    """Takes every decision at once and keeps it, reason included."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __call__(self, approval_id, status, args, reason, merge=None) -> bool:
        self.calls.append((approval_id, status, reason))
        return True


def _inbox(qtbot) -> tuple[ApprovalInbox, Resolver]:
    resolver = Resolver()
    inbox = ApprovalInbox(resolver)
    qtbot.addWidget(inbox)
    inbox.set_state({"nodes": {"n1": {"label": "Builder"}},
                     "pendingApprovals": {"ap1": REQUEST}})
    with qtbot.waitActive(inbox):  # shortcuts reach only the active window
        inbox.show()
        inbox.activateWindow()
    inbox.list.setCurrentItem(inbox.list.topLevelItem(0))
    inbox.list.setFocus()
    return inbox, resolver


def test_d_opens_the_request_ready_for_a_reason_and_enter_denies_with_it(qtbot) -> None:
    inbox, resolver = _inbox(qtbot)
    qtbot.keyClick(inbox.list, Qt.Key.Key_D)
    dialog = inbox.dialog
    assert resolver.calls == []  # nothing is denied on one key
    assert isinstance(dialog, ApprovalDialog) and dialog.isVisible()
    assert dialog.deny_button.isDefault() and not dialog.approve_button.isDefault()
    qtbot.waitUntil(lambda: dialog.reason.hasFocus())
    qtbot.keyClicks(dialog.reason, "builds are cached")
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
    assert resolver.calls == [("ap1", "denied", "builds are cached")]


def test_a_approves_the_selected_request_at_once(qtbot) -> None:
    inbox, resolver = _inbox(qtbot)
    qtbot.keyClick(inbox.list, Qt.Key.Key_A)
    assert resolver.calls == [("ap1", "approved", None)]
