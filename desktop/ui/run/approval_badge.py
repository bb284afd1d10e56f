"""The toolbar's Approvals badge: a round count of what waits on you, Ctrl+Shift+A.

Made with the window (its shortcut works from the first moment); the inbox it counts for
(desktop/ui/run/approval_inbox.py) is made with the other run panels.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QColor, QIcon, QKeySequence, QPainter, QPixmap


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


def approvals_badge(parent: QObject) -> QAction:
    """The badge's action, showing zero until its inbox counts."""
    badge = QAction(badge_icon(0), "Approvals", parent)
    badge.setObjectName("approvals")
    badge.setProperty("command", "Approvals")  # the text also carries the count
    badge.setToolTip("What waits on you in every live run: approvals, merges, "
                     "stalls and failed turns")
    badge.setShortcut(QKeySequence("Ctrl+Shift+A"))
    return badge
