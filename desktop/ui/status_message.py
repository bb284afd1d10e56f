"""The status bar's message, whole however long it is.

QStatusBar paints a temporary message itself and cuts it at the first permanent widget,
so a long one (a paused run's reason: a worktree path and the git command to go on)
lost its end, which is the part that says what to do. :func:`show_whole_messages`
puts a label in the bar's message area instead: one line, elided in the middle so both
the start and the end show, the whole text as its tooltip, and a click opens it in a
box whose text can be selected and copied. Every ``showMessage`` (ours and Qt's status
tips) comes through ``messageChanged``, so callers do not change.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QMouseEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QMessageBox, QSizePolicy, QStatusBar, QWidget

WHOLE_TITLE = "Message"


class StatusMessage(QLabel):
    """One line of the status bar's current message; the whole of it on hover or click."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statusMessage")
        self.whole = ""
        # it takes the room the permanent labels leave, and never widens the window
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(0)
        self.setContentsMargins(6, 0, 6, 0)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def show_message(self, text: str) -> None:
        """Show ``text`` ('' clears it): one line, its middle elided when it is too long."""
        self.whole = " ".join(text.split())  # one line: a message's newlines become spaces
        self._refresh()

    def elided(self) -> bool:
        """Whether the message is longer than the label can show."""
        return self.text() != self.whole

    def _refresh(self) -> None:
        room = self.contentsRect().width()
        self.setText(self.fontMetrics().elidedText(self.whole, Qt.TextElideMode.ElideMiddle,
                                                   room))
        cut = self.elided()
        self.setToolTip(self.whole if cut else "")
        self.setCursor(Qt.CursorShape.PointingHandCursor if cut else Qt.CursorShape.ArrowCursor)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._refresh()  # elided again for the new width

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.whole:
            self.open_whole()
        super().mouseReleaseEvent(event)

    def open_whole(self) -> QMessageBox:
        """The whole message in a box of its own, its text selectable (a path or a git
        command to copy); it stays after the status bar's message times out."""
        box = QMessageBox(QMessageBox.Icon.Information, WHOLE_TITLE, self.whole,
                          QMessageBox.StandardButton.Close, self.window())
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box


def show_whole_messages(bar: QStatusBar) -> StatusMessage:
    """Show ``bar``'s messages in a :class:`StatusMessage` that fills the room left of
    its permanent widgets (so the bar's own, cut-off painting of them has no room)."""
    label = StatusMessage(bar)
    bar.insertPermanentWidget(0, label, 1)
    bar.messageChanged.connect(label.show_message)
    return label
