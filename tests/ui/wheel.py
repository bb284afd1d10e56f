"""A mouse-wheel turn sent to a widget, as the pointer passing over it gives one."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QWidget


def wheel(widget: QWidget, steps: int) -> None:
    """Turn the wheel ``steps`` notches down over the middle of ``widget``."""
    where = QPointF(widget.rect().center())
    event = QWheelEvent(where, QPointF(widget.mapToGlobal(where.toPoint())), QPoint(),
                        QPoint(0, -120 * steps), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)
