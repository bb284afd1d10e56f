"""One light item per edge: a cached curve, arrow heads and an optional label."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem, QWidget

if TYPE_CHECKING:
    from desktop.ui.canvas.scene import CanvasScene

EDGE_TYPE = QGraphicsItem.UserType + 2
ARROW = 9.0
_LABEL_FONT: QFont | None = None


def curve(a: QPointF, b: QPointF, up: bool = False) -> QPainterPath:
    """A curve from an output port ``a`` to an input port ``b``.

    Forward edges are a horizontal S; edges that run backwards swing below the
    nodes (above when ``up``), so they never cross the nodes they join.
    """
    dx = b.x() - a.x()
    path = QPainterPath(a)
    if dx >= 30:
        pull = max(25.0, dx * 0.5)
        path.cubicTo(QPointF(a.x() + pull, a.y()), QPointF(b.x() - pull, b.y()), b)
        return path
    drop = (110.0 + 0.08 * abs(dx)) * (-1 if up else 1)
    pull = 110.0 + 0.05 * abs(dx)
    path.cubicTo(QPointF(a.x() + pull, a.y() + drop), QPointF(b.x() - pull, b.y() + drop), b)
    return path


def arrow_head(tip: QPointF, angle: float) -> QPolygonF:
    """A filled triangle pointing along ``angle`` (radians) with its point at ``tip``."""
    left = angle + math.pi - 0.45
    right = angle + math.pi + 0.45
    return QPolygonF([
        tip,
        QPointF(tip.x() + ARROW * math.cos(left), tip.y() + ARROW * math.sin(left)),
        QPointF(tip.x() + ARROW * math.cos(right), tip.y() + ARROW * math.sin(right)),
    ])


class EdgeItem(QGraphicsItem):
    """Draws one edge between the ports of two nodes."""

    def __init__(self, key: str):
        super().__init__()
        self.key = key
        self.report = False
        self.bidirectional = False
        self.label = ""
        self._path = QPainterPath()
        self._shape = QPainterPath()
        self._bounds = QRectF()
        self._arrows: list[QPolygonF] = []
        self._label_rect = QRectF()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(-1)

    def type(self) -> int:
        return EDGE_TYPE

    def set_content(self, report: bool, bidirectional: bool, label: str) -> None:
        self.report, self.bidirectional, self.label = report, bidirectional, label
        self._relabel()
        self.update()

    def set_ends(self, a: QPointF, b: QPointF) -> None:
        """Recompute the curve between output point ``a`` and input point ``b``."""
        self.prepareGeometryChange()
        back = QPointF(b.x() - 7, b.y())  # stop short so the arrow tip meets the port
        # a backward edge swings away from its target's side; level ones by type
        up = a.y() < b.y() if abs(a.y() - b.y()) > 1 else self.report
        path = curve(QPointF(a.x() + (7 if self.bidirectional else 0), a.y()), back, up)
        self._path = path
        end_angle = math.radians(-path.angleAtPercent(1.0))
        self._arrows = [arrow_head(path.pointAtPercent(1.0), end_angle)]
        if self.bidirectional:
            start_angle = math.radians(-path.angleAtPercent(0.0)) + math.pi
            self._arrows.append(arrow_head(path.pointAtPercent(0.0), start_angle))
        stroker = QPainterPathStroker()
        stroker.setWidth(10)
        self._shape = stroker.createStroke(path)
        self._relabel()

    def _relabel(self) -> None:
        global _LABEL_FONT
        rect = QRectF()
        if self.label and not self._path.isEmpty():
            if _LABEL_FONT is None:
                _LABEL_FONT = QFont()
                _LABEL_FONT.setPixelSize(11)
            width = QFontMetricsF(_LABEL_FONT).horizontalAdvance(self.label) + 14
            mid = self._path.pointAtPercent(0.5)
            rect = QRectF(mid.x() - width / 2, mid.y() - 9, width, 18)
        self.prepareGeometryChange()
        self._label_rect = rect
        self._bounds = self._path.boundingRect().adjusted(-ARROW, -ARROW, ARROW, ARROW).united(
            rect)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        if self._label_rect.isNull():
            return self._shape
        path = QPainterPath(self._shape)
        path.addRect(self._label_rect)
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        scene: CanvasScene = self.scene()  # type: ignore[assignment]
        t = scene.theme
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        color = QColor(t.accent if selected else (t.report if self.report else t.handoff))
        pen = QPen(color, 2.6 if selected else 1.6)
        if self.report:
            pen.setStyle(Qt.PenStyle.DashLine)
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if lod < 0.35:
            painter.drawPath(self._path)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.drawPath(self._path)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        for poly in self._arrows:
            painter.drawPolygon(poly)
        if self.label and lod >= 0.5:
            painter.setPen(QPen(color, 1))
            painter.setBrush(QColor(t.canvas))
            painter.drawRoundedRect(self._label_rect, 9, 9)
            painter.setFont(_LABEL_FONT)
            painter.setPen(QColor(t.text if not selected else t.accent))
            painter.drawText(self._label_rect, Qt.AlignmentFlag.AlignCenter, self.label)
