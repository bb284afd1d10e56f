"""Inputs a mouse wheel passes over: a form scrolled by the wheel must not change the
value of the combo box that happens to slide under the pointer (Qt's combo boxes take
the wheel, and commit it, focused or not)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QComboBox


class ScrollSafeCombo(QComboBox):
    """A combo box that takes the wheel only once it has the focus (a click or Tab gives
    it); otherwise the wheel goes on to the scrolled form around it."""

    def __init__(self) -> None:
        super().__init__()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel alone gives no focus

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # to the parent: the scroll area scrolls
