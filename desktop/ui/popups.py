"""A searchable pop-up list, used for quick-add (Tab), find node (Ctrl+F) and commands (Ctrl+K)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout

WIDTH = 420
MAX_ROWS = 10
NO_MATCHES = "No matches"


@dataclass
class Choice:
    """One row: what it says, a muted detail, and what picking it passes on."""

    text: str
    detail: str = ""
    payload: Any = None


def score(needle: str, hay: str) -> int | None:
    """Rank a match: prefix beats word start beats substring beats in-order letters."""
    if not needle:
        return 0
    hay = hay.lower()
    if hay.startswith(needle):
        return 0
    if f" {needle}" in hay:
        return 1
    if needle in hay:
        return 2
    pos = 0
    for ch in needle:
        pos = hay.find(ch, pos) + 1
        if pos == 0:
            return None
    return 3


class FilterPopup(QFrame):
    """Type to filter, arrows to move, Enter to pick, Esc to close."""

    picked = Signal(object)

    def __init__(self, parent, title: str = ""):
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("popup")
        self.setFixedWidth(WIDTH)
        self.title = QLabel(title)
        self.title.setProperty("role", "muted")
        self.edit = QLineEdit()
        self.list = QListWidget()
        self.list.setUniformItemSizes(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        layout.addWidget(self.edit)
        layout.addWidget(self.list)
        self.choices: list[Choice] = []
        self.edit.textChanged.connect(self.refilter)
        self.edit.installEventFilter(self)
        self.list.itemActivated.connect(lambda item: self._pick(item))
        self.on_pick: Callable[[Any], None] | None = None

    def open(self, title: str, choices: list[Choice], at: QPoint,
             on_pick: Callable[[Any], None], placeholder: str = "Type to search") -> None:
        self.title.setText(title)
        self.choices = choices
        self.on_pick = on_pick
        self.edit.setPlaceholderText(placeholder)
        self.edit.clear()
        self.refilter("")
        self.move(at)
        self.show()
        self.edit.setFocus()

    def refilter(self, text: str) -> None:
        needle = text.strip().lower()
        ranked = []
        for i, choice in enumerate(self.choices):
            s = score(needle, f"{choice.text} {choice.detail}")
            if s is not None:
                ranked.append((s, i, choice))
        ranked.sort(key=lambda r: (r[0], r[1]))
        self.list.clear()
        for _, _, choice in ranked[:200]:
            item = QListWidgetItem(f"{choice.text}    {choice.detail}" if choice.detail
                                   else choice.text)
            item.setData(Qt.ItemDataRole.UserRole, choice)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        else:  # say so, rather than show an empty list; the row cannot be picked
            empty = QListWidgetItem(NO_MATCHES)
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(empty)
        rows = max(1, min(MAX_ROWS, self.list.count()))
        self.list.setFixedHeight(rows * 26 + 6)
        self.adjustSize()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.edit and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                self.list.keyPressEvent(event)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.pick_current()
                return True
        return super().eventFilter(obj, event)

    def pick_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self._pick(item)

    def _pick(self, item: QListWidgetItem) -> None:
        choice: Choice | None = item.data(Qt.ItemDataRole.UserRole)
        if choice is None:  # the "No matches" row
            return
        self.hide()
        if self.on_pick is not None:
            self.on_pick(choice.payload)
        self.picked.emit(choice.payload)
