"""Talk to a node (``message.user``) and, in INTERACTIVE mode, review queued handoffs.

The chosen node is remembered by its workflow key, so a new run of the same graph (new
node ids) keeps it. The typed message stays until the service took it. A run that has
ended takes no message: its message line and Send are disabled, and a note in their
place says how to go on from it. Nothing waits for an ended run's next turn: its queue
is shown only when the chosen node was left messages it never took (a run stopped or
failed with handoffs still queued), under "Left unsent when the run ended".
"""

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

from desktop.contract.enums import RUN_ENDED

PLACEHOLDER = "Message to the node (Enter to send)"
ENDED_PLACEHOLDER = "This run has ended: it takes no more messages"
WAITING = "Waiting for the next turn:"
LEFT_UNSENT = "Left unsent when the run ended:"


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of spaces as single spaces."""
    return " ".join(str(text).split())


class ChatBox(QWidget):
    """A node picker, a message line and the node's queued inbox items (editable)."""

    sendRequested = Signal(str, str)  # node id, text
    editRequested = Signal(str, str, str)  # node id, inbox item id, new message text

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state: dict | None = None
        self.live = False
        self.ended = False  # the run shown has ended: it can take no message, ever
        self.chosen_key: str | None = None  # the node's workflow key: outlives the run
        self.node = QComboBox()
        self.node.setObjectName("chatNode")
        self.node.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.node.activated.connect(lambda _i: self._remember())
        self.text = QLineEdit()
        self.text.setPlaceholderText(PLACEHOLDER)
        self.text.returnPressed.connect(self.send)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("chatSend")
        self.send_button.clicked.connect(self.send)
        row = QHBoxLayout()
        row.addWidget(self.node)
        row.addWidget(self.text, 1)
        row.addWidget(self.send_button)
        self.note = QLabel()
        self.note.setProperty("role", "muted")
        self.note.setWordWrap(True)
        self.note.hide()
        self.queue_label = QLabel(WAITING)
        self.queue = QListWidget()
        self.queue.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.queue.setWordWrap(False)
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
        self.queue_box = split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.queue)
        split.addWidget(edit)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(row)
        layout.addWidget(self.note)
        layout.addWidget(self.queue_label)
        layout.addWidget(split, 1)
        layout.addStretch()  # holds the rest when an ended run's queue is hidden
        self.node.currentIndexChanged.connect(lambda _i: self._fill_queue())
        self.set_live(False)

    def set_state(self, state: dict | None) -> None:
        """Follow the run's nodes and inboxes (the chosen node stays chosen)."""
        self.state = state
        nodes = (state or {}).get("nodes") or {}
        current = self.node.currentData()
        known = [self.node.itemData(i) for i in range(self.node.count())]
        if known != list(nodes):
            self.node.blockSignals(True)
            self.node.clear()
            for node_id, node in nodes.items():
                self.node.addItem(node.get("label") or node_id[:8], node_id)
            # the node the user chose, by key (a new run of the same graph has new ids; a
            # state that does not list it yet must not make another node the choice)
            i = next((self.node.findData(n) for n, node in nodes.items()
                      if self.chosen_key is not None and node.get("key") == self.chosen_key),
                     -1)
            if i < 0:
                i = self.node.findData(current)
            self.node.setCurrentIndex(max(0, i))
            self.node.blockSignals(False)
            if self.chosen_key is None:
                self._remember()
        self.ended = str((state or {}).get("status") or "") in RUN_ENDED
        self._fill_queue()
        # a queued handoff may be changed before an INTERACTIVE run's next turn, which an
        # ended run never takes
        editable = (state or {}).get("mode") == "INTERACTIVE" and not self.ended
        if self.save.isEnabled() != editable:
            self.editor.setReadOnly(not editable)
            self.save.setEnabled(editable)
        self._show_sendable()

    def set_live(self, live: bool, why: str = "") -> None:
        """Whether a message can be sent now; ``why`` says why not (the text stays)."""
        self.live = live
        self.note.setText(why)
        self._show_sendable()

    def _show_sendable(self) -> None:
        live = self.live
        self.send_button.setEnabled(live)
        # a run that may still take messages (starting, read-only here, its service away)
        # keeps the line to type in; an ended one never will, so its line is off too
        closed = self.ended and not live
        self.text.setEnabled(not closed)
        self.text.setPlaceholderText(
            PLACEHOLDER if live else ENDED_PLACEHOLDER if closed else
            "Messages go to a running run (this one is not)")
        self.note.setVisible(bool(self.note.text()) and not live)

    def select_node(self, node_id: str) -> None:
        """Address the next message to ``node_id``."""
        i = self.node.findData(node_id)
        if i >= 0:
            self.node.setCurrentIndex(i)
            self._remember()

    def select_key(self, key: str) -> None:
        """Address the next message to the node with workflow key ``key`` (this run's or
        the next one's)."""
        self.chosen_key = key
        nodes = (self.state or {}).get("nodes") or {}
        node_id = next((n for n, node in nodes.items() if node.get("key") == key), None)
        if node_id is not None:
            self.select_node(node_id)

    def _remember(self) -> None:
        node = ((self.state or {}).get("nodes") or {}).get(self.node.currentData()) or {}
        if node.get("key"):
            self.chosen_key = node["key"]

    def send(self) -> None:
        """Ask to send the typed message to the chosen node; the text stays in the line
        until :meth:`sent` says the service took it."""
        text = self.text.text().strip()
        node_id = self.node.currentData()
        if not self.live:
            self.note.setText("This run is not running: your message was not sent. Start "
                              "or resume a run to talk to its nodes.")
            self.note.show()
            return
        if text and node_id:
            self.sendRequested.emit(node_id, text)

    def sent(self, text: str) -> None:
        """The service took ``text``: clear the line (unless it was typed over since)."""
        if self.text.text().strip() == text:
            self.text.clear()

    def _fill_queue(self) -> None:
        node_id = self.node.currentData()
        items = ((self.state or {}).get("inboxes") or {}).get(node_id) or []
        key = (node_id, tuple((i.get("id"), i.get("text")) for i in items))
        if key == getattr(self, "_queue_key", None):  # unchanged: keep the widget as is
            self._show_queue()  # (the run may have ended meanwhile)
            return
        self._queue_key = key
        selected = self.queue.currentItem().data(256) if self.queue.currentItem() else None
        self.queue.blockSignals(True)
        self.queue.clear()
        for item in items:
            text = (item.get("envelope") or {}).get("payload", {}).get("message") \
                or item.get("text", "")
            # the whole text on one line: the list elides it to its width, with an ellipsis
            entry = QListWidgetItem(f"{item.get('kind', '?')}: {one_line(text)}")
            entry.setToolTip(str(text)[:4000])
            entry.setData(256, item.get("id"))
            entry.setData(257, item)
            self.queue.addItem(entry)
            if item.get("id") == selected:
                self.queue.setCurrentItem(entry)
        self.queue.blockSignals(False)
        self._show_queue()

    def _show_queue(self) -> None:
        """A live run's queue waits for the next turn; an ended run has none, and shows
        only what it was left that it never took."""
        shown = not self.ended or self.queue.count() > 0
        self.queue_label.setText(LEFT_UNSENT if self.ended else WAITING)
        self.queue_label.setVisible(shown)
        self.queue_box.setVisible(shown)

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
