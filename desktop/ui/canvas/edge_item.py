"""One light item per edge: a curve, arrow heads and an optional label.

Geometry is cheap to set (it runs for every edge of a node being dragged); the
hit-test outline and the label box are built only when first asked for.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPolygonF,
)
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from desktop.ui.canvas.look import Look

EDGE_TYPE = QGraphicsItem.UserType + 2
ARROW = 9.0
PORT_GAP = 7.0  # the arrow tip stops at the port's rim
_FONT: list[QFont] = []


def _label_font() -> QFont:
    if not _FONT:
        font = QFont()
        font.setPixelSize(11)
        _FONT.append(font)
    return _FONT[0]


def controls(a: QPointF, b: QPointF, up: bool = False) -> tuple[QPointF, QPointF]:
    """Control points of the curve from output port ``a`` to input port ``b``.

    Forward edges are a horizontal S; edges that run backwards swing below the
    nodes (above when ``up``), so they do not cross the nodes they join.
    """
    dx = b.x() - a.x()
    if dx >= 30:
        pull = max(25.0, dx * 0.5)
        return QPointF(a.x() + pull, a.y()), QPointF(b.x() - pull, b.y())
    drop = (110.0 + 0.08 * -dx) * (-1 if up else 1)
    pull = 110.0 + 0.05 * -dx
    return QPointF(a.x() + pull, a.y() + drop), QPointF(b.x() - pull, b.y() + drop)


def curve(a: QPointF, b: QPointF, up: bool = False) -> QPainterPath:
    c1, c2 = controls(a, b, up)
    path = QPainterPath(a)
    path.cubicTo(c1, c2, b)
    return path


def arrow_head(tip: QPointF, towards: QPointF) -> QPolygonF:
    """A filled triangle with its point at ``tip``, coming from direction ``towards``."""
    angle = math.atan2(tip.y() - towards.y(), tip.x() - towards.x())
    left, right = angle + math.pi - 0.45, angle + math.pi + 0.45
    return QPolygonF([
        tip,
        QPointF(tip.x() + ARROW * math.cos(left), tip.y() + ARROW * math.sin(left)),
        QPointF(tip.x() + ARROW * math.cos(right), tip.y() + ARROW * math.sin(right)),
    ])


class EdgeItem(QGraphicsItem):
    """Draws one edge between the ports of two nodes."""

    def __init__(self, key: str, look: Look):
        super().__init__()
        self.key = key
        self.look = look
        self.report = False
        self.bidirectional = False
        self.label = ""
        self.dangling = False
        self._ends = (QPointF(), QPointF(), QPointF(), QPointF())
        self._path = QPainterPath()
        self._bounds = QRectF()
        self._extras: tuple[list[QPolygonF], QRectF, QPainterPath] | None = None
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(-1)

    def type(self) -> int:
        return EDGE_TYPE

    def set_content(self, report: bool, bidirectional: bool, label: str) -> None:
        """Take what to draw; the scene calls set_ends right after, which rebuilds."""
        if (report, bidirectional, label) != (self.report, self.bidirectional, self.label):
            self.report, self.bidirectional, self.label = report, bidirectional, label
            self._extras = None
            self.update()

    def set_ends(self, a: QPointF, b: QPointF) -> None:
        """Recompute the curve between output point ``a`` and input point ``b``."""
        self.prepareGeometryChange()
        # a backward edge swings away from its target's side; level ones by type
        up = a.y() < b.y() if abs(a.y() - b.y()) > 1 else self.report
        start = QPointF(a.x() + (PORT_GAP if self.bidirectional else 0), a.y())
        end = QPointF(b.x() - PORT_GAP, b.y())
        c1, c2 = controls(start, end, up)
        path = QPainterPath(start)
        path.cubicTo(c1, c2, end)
        self._path = path
        self._ends = (start, c1, c2, end)
        xs = (start.x(), c1.x(), c2.x(), end.x())
        ys = (start.y(), c1.y(), c2.y(), end.y())
        # the curve lies inside its control points' hull; the label box is added when built
        self._bounds = QRectF(min(xs) - ARROW, min(ys) - ARROW - 10,
                              max(xs) - min(xs) + 2 * ARROW, max(ys) - min(ys) + 2 * ARROW + 20)
        self._extras = None

    def _detail(self) -> tuple[list[QPolygonF], QRectF, QPainterPath]:
        """Arrow heads, label box and hit-test outline, built when first needed."""
        if self._extras is None:
            start, c1, c2, end = self._ends
            arrows = [arrow_head(end, c2 if c2 != end else start)]
            if self.bidirectional:
                arrows.append(arrow_head(start, c1 if c1 != start else end))
            rect = QRectF()
            if self.label:
                width = QFontMetricsF(_label_font()).horizontalAdvance(self.label) + 14
                mid = self._path.pointAtPercent(0.5)
                rect = QRectF(mid.x() - width / 2, mid.y() - 9, width, 18)
            stroker = QPainterPathStroker()
            stroker.setWidth(10)
            shape = stroker.createStroke(self._path)
            if not rect.isNull():
                shape.addRect(rect)
                if not self._bounds.contains(rect):
                    self.prepareGeometryChange()
                    self._bounds = self._bounds.united(rect)
            self._extras = (arrows, rect, shape)
        return self._extras

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        return self._detail()[2]

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        look = self.look
        kind = "selected" if self.isSelected() else ("report" if self.report else "handoff")
        lod = painter.worldTransform().m11()
        if lod < 0.35:
            painter.setPen(look.edge[(kind, self.report, True)])
            painter.drawPath(self._path)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(look.edge[(kind, self.report, False)])
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self._path)
        arrows, rect, _ = self._detail()
        painter.setPen(look.no_pen)
        painter.setBrush(look.edge_brush[kind])
        for poly in arrows:
            painter.drawPolygon(poly)
        if self.label and lod >= 0.5:
            painter.setPen(look.edge_label_pen[kind])
            painter.setBrush(look.canvas_brush)
            painter.drawRoundedRect(rect, 9, 9)
            painter.setFont(_label_font())
            painter.setPen(look.edge_label_pen["selected"] if kind == "selected" else look.text)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.label)
