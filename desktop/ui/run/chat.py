"""Talk to a node (``message.user``) and, in INTERACTIVE mode, review queued handoffs."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)


class ChatBox(QWidget):
    """A node picker, a message line and the node's queued inbox items (editable)."""

    sendRequested = Signal(str, str)  # node id, text
    editRequested = Signal(str, str, str)  # node id, inbox item id, new message text

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state: dict | None = None
        self.node = QComboBox()
        self.node.setObjectName("chatNode")
        self.text = QLineEdit()
        self.text.setPlaceholderText("Message to the node (Enter to send)")
        self.text.returnPressed.connect(self.send)
        send = QPushButton("Send")
        send.clicked.connect(self.send)
        row = QHBoxLayout()
        row.addWidget(self.node)
        row.addWidget(self.text, 1)
        row.addWidget(send)
        self.queue_label = QLabel("Waiting for the next turn:")
        self.queue = QListWidget()
        self.queue.currentItemChanged.connect(self._show_item)
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText("Select a queued handoff to read or edit it")
        self.save = QPushButton("Save edited message")
        self.save.clicked.connect(self._save)
        # queue and message side by side: the bottom strip is wide and short
        edit = QWidget()
        edit_box = QVBoxLayout(edit)
        edit_box.setContentsMargins(0, 0, 0, 0)
        edit_box.addWidget(self.editor, 1)
        edit_box.addWidget(self.save)
        for widget in (self.queue, self.editor):
            widget.setMinimumHeight(40)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.queue)
        split.addWidget(edit)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(row)
        layout.addWidget(self.queue_label)
        layout.addWidget(split, 1)
        self.node.currentIndexChanged.connect(lambda _i: self._fill_queue())

    def set_state(self, state: dict | None) -> None:
        """Follow the run's nodes and inboxes."""
        self.state = state
        nodes = (state or {}).get("nodes") or {}
        current = self.node.currentData()
        known = [self.node.itemData(i) for i in range(self.node.count())]
        if known != list(nodes):
            self.node.blockSignals(True)
            self.node.clear()
            for node_id, node in nodes.items():
                self.node.addItem(node.get("label") or node_id[:8], node_id)
            i = self.node.findData(current)
            self.node.setCurrentIndex(max(0, i))
            self.node.blockSignals(False)
        self._fill_queue()
        interactive = (state or {}).get("mode") == "INTERACTIVE"
        if self.save.isEnabled() != interactive:
            self.editor.setReadOnly(not interactive)
            self.save.setEnabled(interactive)

    def select_node(self, node_id: str) -> None:
        """Address the next message to ``node_id``."""
        i = self.node.findData(node_id)
        if i >= 0:
            self.node.setCurrentIndex(i)

    def send(self) -> None:
        """Ask to send the typed message to the chosen node."""
        text = self.text.text().strip()
        node_id = self.node.currentData()
        if text and node_id:
            self.sendRequested.emit(node_id, text)
            self.text.clear()

    def _fill_queue(self) -> None:
        node_id = self.node.currentData()
        items = ((self.state or {}).get("inboxes") or {}).get(node_id) or []
        key = (node_id, tuple((i.get("id"), i.get("text")) for i in items))
        if key == getattr(self, "_queue_key", None):  # unchanged: keep the widget as is
            return
        self._queue_key = key
        selected = self.queue.currentItem().data(256) if self.queue.currentItem() else None
        self.queue.blockSignals(True)
        self.queue.clear()
        for item in items:
            text = (item.get("envelope") or {}).get("payload", {}).get("message") \
                or item.get("text", "")
            entry = QListWidgetItem(f"{item.get('kind', '?')}: {text[:100]}")
            entry.setData(256, item.get("id"))
            entry.setData(257, item)
            self.queue.addItem(entry)
            if item.get("id") == selected:
                self.queue.setCurrentItem(entry)
        self.queue.blockSignals(False)

    def _show_item(self, current: QListWidgetItem | None, _prev: object = None) -> None:
        if current is None:
            return
        item = current.data(257) or {}
        env = item.get("envelope")
        if env:
            payload = env.get("payload") or {}
            self.editor.setPlainText(payload.get("message", ""))
            self.editor.setToolTip(json.dumps(env, indent=2)[:4000])
        else:
            self.editor.setPlainText(item.get("text", ""))

    def _save(self) -> None:
        current = self.queue.currentItem()
        if current is not None and self.node.currentData():
            self.editRequested.emit(self.node.currentData(), current.data(256),
                                    self.editor.toPlainText())
