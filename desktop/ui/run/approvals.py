"""Approvals: a non-blocking inbox of pending gated calls and merges that conflict, and a
dialog to decide one (a merge's: desktop/ui/run/merge_dialog.py).

Both are fed by events (``approval.requested`` / ``approval.resolved``); a decision
goes to a resolver callable, which sends it to the service (the answer may come
later: the resolver may return an awaitable), so the resolution is an event like
any other and every client sees it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.store.safe_json import loads as safe_loads
from desktop.ui.run.merge_dialog import MergeDialog
from desktop.views.approval_text import approval_text

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


class ApprovalDialog(QDialog):
    """One request: node, tool, args, context; Approve, Deny, or Modify the args."""

    decided = Signal(str, str)  # approval id, status

    def __init__(self, request: dict, resolver: Resolver, node_label: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
        self.error = QLabel()
        self.error.setStyleSheet("color: #d0021b")
        self.error.setWordWrap(True)
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
        self.error.clear()
        result = self.resolver(self.approval_id, status, args, self.reason.text().strip() or None)
        if inspect.isawaitable(result):
            self._buttons_enabled(False)  # one decision at a time while the service answers
            future = asyncio.ensure_future(result)
            future.add_done_callback(lambda f: self._answered(status, f))
            return
        self._decided(status, bool(result))

    def _answered(self, status: str, future: asyncio.Future) -> None:
        if not isValid(self):
            return
        self._buttons_enabled(True)
        self._decided(status, not future.cancelled() and future.exception() is None
                      and bool(future.result()))

    def _buttons_enabled(self, enabled: bool) -> None:
        for button in (self.approve_button, self.deny_button, self.modify_button):
            button.setEnabled(enabled)

    def _decided(self, status: str, accepted: bool) -> None:
        if accepted:
            self.decided.emit(self.approval_id, status)
            self.accept()
        else:
            self.error.setText("The request could not be resolved (it may be decided already).")


def badge_icon(count: int) -> QIcon:
    """A round badge showing ``count`` (grey when zero)."""
    pix = QPixmap(28, 28)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor("#eb5757" if count else "#9e9e9e"))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(2, 2, 24, 24)
    painter.setPen(QColor("white"))
    font = painter.font()
    font.setBold(True)
    font.setPixelSize(13)
    painter.setFont(font)
    painter.drawText(pix.rect(), Qt.AlignmentFlag.AlignCenter, str(min(count, 99)))
    painter.end()
    return QIcon(pix)


class ApprovalInbox(QWidget):
    """Pending requests, oldest first. Enter opens one; A approves, D denies at once."""

    countChanged = Signal(int)

    def __init__(self, resolver: Resolver | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.resolver: Resolver = resolver or (lambda *_a: False)
        self.node_labels: dict[str, str] = {}
        self.pending: dict[str, dict] = {}
        self.dialog: ApprovalDialog | MergeDialog | None = None
        self.list = QListWidget()
        self.list.itemActivated.connect(lambda item: self.open_request(item.data(256)))
        self.hint = QLabel("Enter: open · A: approve (a merge: open) · D: deny")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.hint)
        self.badge = QAction(badge_icon(0), "Approvals", self)
        self.badge.setObjectName("approvals")
        self.badge.setProperty("command", "Approvals")  # the text also carries the count
        self.badge.setToolTip("Pending approvals")
        self.badge.setShortcut(QKeySequence("Ctrl+Shift+A"))
        self.badge.triggered.connect(self.open_next)
        for key, status in (("A", "approved"), ("D", "denied")):
            act = QAction(self.list)
            act.setShortcut(QKeySequence(key))
            act.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            act.triggered.connect(lambda _c=False, s=status: self._quick(s))
            self.list.addAction(act)

    def set_state(self, state: dict | None) -> None:
        """Replace the pending list from a run state (e.g. when a run is opened)."""
        self.pending = dict((state or {}).get("pendingApprovals") or {})
        for node_id, node in ((state or {}).get("nodes") or {}).items():
            self.node_labels[node_id] = node.get("label") or node_id[:8]
        self._refresh()

    def apply_events(self, events: list[dict]) -> None:
        """Follow requests and resolutions in a batch of events."""
        changed = False
        for event in events:
            kind = event.get("type")
            if kind == "approval.requested":
                self.pending[event["approvalId"]] = event
                changed = True
            elif kind == "approval.resolved":
                changed |= self.pending.pop(event.get("approvalId"), None) is not None
                if self.dialog is not None and self.dialog.approval_id == event.get("approvalId"):
                    self.dialog.close()
            elif kind == "run.created":
                for node_id, node in (event.get("nodes") or {}).items():
                    self.node_labels[node_id] = node.get("label") or node_id[:8]
            elif kind == "node.patch" and (event.get("patch") or {}).get("label"):
                self.node_labels[event.get("nodeId")] = event["patch"]["label"]
        if changed:
            self._refresh()

    def _refresh(self) -> None:
        current = self.list.currentItem().data(256) if self.list.currentItem() else None
        self.list.clear()
        for approval_id, req in self.pending.items():
            tool = req.get("tool") or {}
            node = self.node_labels.get(req.get("nodeId") or "", "run")
            args = json.dumps(tool.get("args") or {})
            text = f"{node}: {approval_text(req)}" if req.get("kind") == "merge" else \
                f"{node}: {tool.get('name', '?')} {args[:80]}"
            item = QListWidgetItem(text)
            item.setData(256, approval_id)
            self.list.addItem(item)
            if approval_id == current:
                self.list.setCurrentItem(item)
        if self.list.currentItem() is None and self.list.count():
            self.list.setCurrentRow(0)
        count = len(self.pending)
        self.badge.setIcon(badge_icon(count))
        self.badge.setText(f"Approvals ({count})")
        self.countChanged.emit(count)

    def open_request(self, approval_id: str) -> ApprovalDialog | MergeDialog | None:
        """Show the dialog for one pending request (non-blocking)."""
        req = self.pending.get(approval_id)
        if req is None:
            return None
        if self.dialog is not None:
            self.dialog.close()
        label = self.node_labels.get(req.get("nodeId") or "", "")
        kind = MergeDialog if req.get("kind") == "merge" else ApprovalDialog
        self.dialog = kind(req, self.resolver, label, self)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def open_next(self) -> ApprovalDialog | MergeDialog | None:
        """Open the oldest pending request."""
        return self.open_request(next(iter(self.pending))) if self.pending else None

    def _quick(self, status: str) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        merging = (self.pending.get(item.data(256)) or {}).get("kind") == "merge"
        if merging and status != "denied":  # a merge needs a decision per file: open it
            self.open_request(item.data(256))
            return
        self.resolver(item.data(256), status, None, None)
