"""Approvals: the dialog to decide one pending gated call (a merge's:
desktop/ui/run/merge_dialog.py; the inbox that lists them: approval_inbox.py).

A decision goes to a resolver callable, which sends it to the service (the answer may come
later: the resolver may return an awaitable), so the resolution is an event like
any other and every client sees it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.disk.safe_json import loads as safe_loads
from desktop.ui.dialog_size import keep_readable
from desktop.ui.run.decision_dialog import DecisionDialog, error_label

# (approval id, status, modified args, reason, merge=None: a merge approval's choice) ->
# accepted? (now, or once the service answers)
Resolver = Callable[..., "bool | Awaitable[bool | None] | None"]


def parse_args(text: str) -> tuple[dict | None, str | None]:
    """The edited arguments as a JSON object, or (None, a message saying what is wrong)."""
    try:
        value = safe_loads(text, lenient=True)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
    if not isinstance(value, dict):
        return None, "the arguments must be a JSON object ({...})"
    return value, None


class ApprovalDialog(DecisionDialog):
    """One request: node, tool, args, context; Approve, Deny, or Modify the args."""

    def __init__(self, request: dict, resolver: Resolver, node_label: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.request = request
        self.resolver = resolver
        tool = request.get("tool") or {}
        self.setWindowTitle(f"Approve {tool.get('name', 'tool call')}?")
        self.setModal(False)
        form = QFormLayout()
        form.addRow("Node", QLabel(node_label or str(request.get("nodeId") or "run")))
        form.addRow("Tool", QLabel(f"<b>{tool.get('name', '?')}</b>"))
        self.args_edit = QPlainTextEdit(json.dumps(tool.get("args") or {}, indent=2))
        self.args_edit.setReadOnly(True)
        self.args_edit.setFont(QFont("monospace"))
        form.addRow("Arguments", self.args_edit)
        context = QLabel(str(request.get("context") or "—"))
        context.setWordWrap(True)
        form.addRow("Context", context)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("optional reason (sent with the decision)")
        form.addRow("Reason", self.reason)
        self.error = error_label()
        buttons = QDialogButtonBox()
        self.approve_button = QPushButton("&Approve")
        self.deny_button = QPushButton("&Deny")
        self.modify_button = QPushButton("&Modify")
        self.approve_button.setToolTip("Ctrl+Enter")
        buttons.addButton(self.approve_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.deny_button, QDialogButtonBox.ButtonRole.RejectRole)
        buttons.addButton(self.modify_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.approve_button.clicked.connect(self.approve)
        self.deny_button.clicked.connect(self.deny)
        self.modify_button.clicked.connect(self.modify)
        shortcut = QAction(self)
        shortcut.setShortcut(QKeySequence("Ctrl+Return"))
        shortcut.triggered.connect(self.approve)
        self.addAction(shortcut)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.approve_button.setDefault(True)
        self.approve_button.setFocus()
        self.resize(520, 420)

    @property
    def approval_id(self) -> str:
        return str(self.request.get("approvalId"))

    def approve(self) -> None:
        """Approve as proposed (or send the edited args when editing)."""
        if not self.args_edit.isReadOnly():
            self.modify()
            return
        self._send("approved", None)

    def deny(self) -> None:
        """Deny the call."""
        self._send("denied", None)

    def ask_reason(self) -> None:
        """Ready to deny: the reason field has the focus and Enter denies (what D in the
        inbox opens, rather than denying at once with no reason and no way back)."""
        self.approve_button.setDefault(False)
        self.deny_button.setDefault(True)
        self.reason.setFocus()

    def modify(self) -> None:
        """First press: edit the args. Second press: validate and send them."""
        if self.args_edit.isReadOnly():
            self.args_edit.setReadOnly(False)
            self.modify_button.setText("Send &modified")
            self.args_edit.setFocus()
            return
        args, problem = parse_args(self.args_edit.toPlainText())
        if problem:
            self.error.setText(problem)
            return
        self._send("modified", args)

    def _send(self, status: str, args: dict | None) -> None:
        self.send_decision(status, lambda: self.resolver(
            self.approval_id, status, args, self.reason.text().strip() or None))

    def set_deciding(self, deciding: bool) -> None:
        for button in (self.approve_button, self.deny_button, self.modify_button):
            button.setEnabled(not deciding)
