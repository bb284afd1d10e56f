"""A node's budget meter on its card: usage in a line (``12.3k tok · $0.04 · 83%``) and,
when the node has a budget, a thin bar of the share used, green, amber from 80 % and red
once a limit is reached. The figures are :mod:`desktop.views.budget_meter`'s.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter

from desktop.views.budget_meter import NEAR_LIMIT, OK, OVER, Meter

LEVEL_COLORS = {OK: "#27ae60", NEAR_LIMIT: "#e69500", OVER: "#eb5757"}
TEXT_H = 14.0
BAR_H = 3.0
METER_H = TEXT_H + BAR_H + 2  # what the meter takes under the card, bar included


def level_color(level: str) -> QColor:
    """The colour of a meter level."""
    return QColor(LEVEL_COLORS.get(level, LEVEL_COLORS[OK]))


def paint_meter(painter: QPainter, row: QRectF, meter: Meter, muted: QColor) -> None:
    """Draw ``meter`` in ``row`` (METER_H high): its text, then its bar when it has a
    budget. The text keeps the muted colour until the budget needs looking at."""
    font = QFont()
    font.setPixelSize(11)
    level = meter.level
    if level != OK:
        font.setWeight(QFont.Weight.DemiBold)
    painter.setFont(font)
    painter.setPen(muted if level == OK else level_color(level))
    text = QFontMetricsF(font).elidedText(meter.text, Qt.TextElideMode.ElideRight,
                                          row.width())
    painter.drawText(QRectF(row.left(), row.top(), row.width(), TEXT_H),
                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
    if meter.share is None:
        return
    bar = QRectF(row.left(), row.top() + TEXT_H + 1, row.width(), BAR_H)
    painter.setPen(Qt.PenStyle.NoPen)
    track = QColor(muted)
    track.setAlpha(60)
    painter.setBrush(track)
    painter.drawRoundedRect(bar, BAR_H / 2, BAR_H / 2)
    painter.setBrush(level_color(level))
    filled = QRectF(bar.left(), bar.top(), bar.width() * min(1.0, meter.share), BAR_H)
    painter.drawRoundedRect(filled, BAR_H / 2, BAR_H / 2)
