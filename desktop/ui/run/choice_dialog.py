"""Which attempt of a best-of-N turn goes on, decided in the app.

The request is a ``choice`` approval's (desktop/contract/attempts.py). Each attempt is
a row (its index, what it changed, whether it failed); the selected one's output and
diffstat show beside the list, and below, every attempt's diff side by side (the head
the request carries; the whole is its diff.patch), coloured as diffs. Under them, one
row of buttons: Choose attempt N sends the selected attempt; Deny fails the turn. The
decision goes to a resolver callable (as the approval dialog's), which may answer later
(an awaitable).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.dialog_size import keep_readable
from desktop.ui.run.decision_dialog import DecisionDialog, error_label
from desktop.ui.run.patch_view import CodeHighlighter
from desktop.views.approval_text import attempt_line


def attempt_detail(attempt: dict[str, Any]) -> str:
    """An attempt's output, diffstat and where its diff is, for reading."""
    parts = []
    if not attempt.get("ok", True):
        parts.append(f"This attempt failed: {attempt.get('error') or '?'}. It cannot win.")
    parts.append(f"Branch {attempt.get('branch') or '?'} at {str(attempt.get('commit'))[:12]}")
    parts.append("Output:\n" + (attempt.get("output") or "(none)"))
    parts.append("Changes:\n" + ((attempt.get("diffstat") or "").rstrip() or "(none)"))
    if attempt.get("diffPath"):
        parts.append(f"The whole diff: {attempt['diffPath']} in the run folder")
    return "\n\n".join(parts)


def _diff_pane(attempt: dict[str, Any]) -> QGroupBox:
    """One attempt's diff, titled with its number (and whether it failed)."""
    failed = "" if attempt.get("ok", True) else " (failed)"
    group = QGroupBox(f"Attempt {attempt.get('index', '?')}{failed}")
    text = QPlainTextEdit((attempt.get("diffHead") or "").rstrip() or "(no change)")
    text.setReadOnly(True)
    text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    text.setFont(QFont("monospace"))
    # added and removed lines coloured as in the Diffs and Result views; the document
    # owns the highlighter, the attribute only keeps it at hand
    group.highlighter = CodeHighlighter(text.document())  # type: ignore[attr-defined]
    box = QVBoxLayout(group)
    box.setContentsMargins(4, 4, 4, 4)
    box.addWidget(text)
    return group


class ChoiceDialog(DecisionDialog):
    """One choice approval: pick the attempt that goes on (see the module)."""

    refused_text = "The choice could not be sent (it may be decided already)."

    def __init__(self, request: dict, resolver: Any, node_label: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.request = request
        self.resolver = resolver
        self.attempts: list[dict[str, Any]] = list((request.get("choice") or {})
                                                   .get("attempts") or [])
        self.setWindowTitle(f"Choose an attempt: {node_label or 'node'}")
        self.setModal(False)
        head = QLabel(f"{len(self.attempts)} attempts of {node_label or 'the node'}'s turn "
                      "have ended. The one you choose goes on; the others stay in the run "
                      "on their branches.")
        head.setWordWrap(True)
        self.list = QListWidget()
        self.list.setWordWrap(True)  # an attempt's line is whole, not cut by a scroll bar
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for attempt in self.attempts:
            self.list.addItem(attempt_line(attempt))
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setFont(QFont("monospace"))
        top = QSplitter()
        top.addWidget(self.list)
        top.addWidget(self.detail)
        top.setStretchFactor(1, 2)
        top.setSizes([380, 700])
        self.diffs: list[QGroupBox] = []
        side_by_side = QSplitter(Qt.Orientation.Horizontal)
        for attempt in self.attempts:
            group = _diff_pane(attempt)
            self.diffs.append(group)
            side_by_side.addWidget(group)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(side_by_side)
        split.setStretchFactor(1, 2)
        self.error = error_label()
        self.choose_button = QPushButton("&Choose")  # named after the selection in _show
        self.choose_button.setDefault(True)
        self.deny_button = QPushButton("&Deny (the turn fails)")
        self.choose_button.clicked.connect(self.choose)
        self.deny_button.clicked.connect(self.deny)
        # the buttons sit together at the right, at their own width: stretched to half the
        # row each, they stood under one attempt's diff each and read as about that one
        actions = QHBoxLayout()
        actions.addStretch(1)
        actions.addWidget(self.deny_button)
        actions.addWidget(self.choose_button)
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(split, 1)
        layout.addWidget(self.error)
        layout.addLayout(actions)
        self.list.currentRowChanged.connect(self._show)
        first = next((i for i, a in enumerate(self.attempts) if a.get("ok", True)), 0)
        self.list.setCurrentRow(first)
        self.resize(1100, 760)

    @property
    def approval_id(self) -> str:
        return str(self.request.get("approvalId"))

    def selected(self) -> dict[str, Any] | None:
        row = self.list.currentRow()
        return self.attempts[row] if 0 <= row < len(self.attempts) else None

    def _show(self, _row: int) -> None:
        attempt = self.selected()
        self.detail.setPlainText(attempt_detail(attempt) if attempt else "")
        for row, group in enumerate(self.diffs):
            group.setStyleSheet("QGroupBox { font-weight: bold; }" if row == _row else "")
        self.choose_button.setEnabled(bool(attempt and attempt.get("ok", True)))
        self.choose_button.setText(f"&Choose attempt {attempt.get('index', '?')}" if attempt
                                   else "&Choose")

    def choose(self) -> None:
        """Send the selected attempt as the one that goes on."""
        attempt = self.selected()
        if attempt is not None:
            self._send("approved", int(attempt.get("index") or 0))

    def approve(self) -> None:
        """As the approval dialog's approve: the selected attempt goes on (when the dialog
        opens, the first that succeeded)."""
        self.choose()

    def deny(self) -> None:
        """Choose none: the turn fails."""
        self._send("denied", None)

    def _send(self, status: str, choice: int | None) -> None:
        self.send_decision(status, lambda: self.resolver(self.approval_id, status, None, None,
                                                         choice=choice))

    def set_deciding(self, deciding: bool) -> None:
        self.deny_button.setEnabled(not deciding)
        if deciding:
            self.choose_button.setEnabled(False)
        else:
            self._show(self.list.currentRow())
