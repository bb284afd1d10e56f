"""How small a dialog may get: never below a size its text reads in.

A dialog whose layout alone sets its minimum could be dragged down to a sliver (the
shortcuts list to 102 x 150 px, a tool-call approval to 278 px wide), and a message box
sizes itself to its shortest line, so a short question wrapped its note into a narrow
column. :func:`keep_readable` gives a dialog a floor, taken with its layout's own minimum
once it first shows (its contents are all there by then); :func:`readable_box` gives a
message box's text a width to wrap at.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtWidgets import QDialog, QMessageBox

READABLE = QSize(420, 160)
"""The least size of a dialog, in pixels, unless its layout needs more."""
BOX_TEXT = "QLabel#qt_msgbox_label { min-width: 26em; }"
"""A message box's question wraps at this width at the least (about 60 characters)."""


class _FloorOnShow(QObject):
    """Sets its dialog's minimum size when it first shows."""

    def __init__(self, dialog: QDialog, least: QSize) -> None:
        super().__init__(dialog)
        self.least = least
        dialog.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QDialog):
            watched.removeEventFilter(self)
            floor = self.least.expandedTo(watched.minimumSizeHint()).expandedTo(
                watched.minimumSize())  # a minimum of its own stays
            watched.setMinimumSize(floor)
            if watched.width() < floor.width() or watched.height() < floor.height():
                watched.resize(watched.size().expandedTo(floor))
        return False


def keep_readable(dialog: QDialog, least: QSize = READABLE) -> QDialog:
    """``dialog`` never smaller than ``least`` (nor than its layout needs); returns it."""
    _FloorOnShow(dialog, least)
    return dialog


def readable_box(box: QMessageBox) -> QMessageBox:
    """``box``'s question wraps at a width it reads in, not at its shortest line."""
    box.setStyleSheet(box.styleSheet() + BOX_TEXT)
    return box
