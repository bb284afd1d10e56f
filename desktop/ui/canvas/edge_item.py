"""One light item per edge: a route around nodes, arrow heads and an optional label.

The route comes from :mod:`desktop.ui.canvas.routing` (an S-curve when nothing is in
the way, else an orthogonal path with rounded corners); the label sits on it where no
node covers it, on a background. The hit-test outline and the label box are built only
when first asked for, and so is an S-curve's Qt path: routing thousands of edges then
builds no Qt objects but their bounds.

Routing waits until an edge is first drawn (or its shape or path is asked for):
building a big graph then costs no routing at all, and a view routes only what it
shows. Until then the edge claims the area around its ends where routes are searched
first, and draws nothing unrouted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from desktop.ui.canvas.look import Look
from desktop.ui.canvas.routing import Box, Point, Route, clear_curve, label_spot, route

EDGE_TYPE = QGraphicsItem.UserType + 2
ARROW = 9.0
PORT_GAP = 7.0  # the arrow tip stops at the port's rim
CORNER = 10.0  # radius of an orthogonal route's rounded corners
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


@lru_cache(maxsize=4096)
def s_curve(c1: Point, c2: Point, end: Point) -> QPainterPath:
    """The cubic from (0, 0) through controls ``c1`` and ``c2`` to ``end``: edges of the same
    shape (a row of nodes evenly apart) share it, moved to where each starts."""
    path = QPainterPath()
    path.moveTo(0.0, 0.0)
    path.cubicTo(*c1, *c2, *end)
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


class EdgeItem(QGraphicsRectItem):
    """Draws one edge between the ports of two nodes.

    Its bounds are the rectangle of a QGraphicsRectItem (which draws nothing of its own
    here): Qt asks for an item's bounds several times a frame, and this way it asks C++,
    not Python, thousands of edges at a time.
    """

    def __init__(self, key: str, look: Look):
        super().__init__()
        self.key = key
        self.look = look
        self.report = False
        self.bidirectional = False
        self.label = ""
        self.dangling = False
        self.diff_mark: str | None = None  # compare mode: "added" or "changed"
        # start, the control leaving it, the control coming into the end, end (scene x, y)
        self._ends: tuple[Point, Point, Point, Point] = ((0.0, 0.0),) * 4
        self.route: Route | None = None
        self._keep_clear: tuple = (None, None, None)  # what the label must not cover
        self._path: QPainterPath | None = QPainterPath()  # None: an S-curve not built yet
        self.setPen(Qt.PenStyle.NoPen)  # the bounds are the rectangle, no pen around it
        self._extras: tuple[list[QPolygonF], QRectF, QPainterPath] | None = None
        self.pending = False  # routing put off until first needed (see defer)
        self.router: Callable[[EdgeItem], None] | None = None  # routes a pending edge
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

    def set_diff_mark(self, mark: str | None) -> None:
        """Draw the edge as added or changed relative to a compared workflow (None: not)."""
        if mark != self.diff_mark:
            self.diff_mark = mark
            self.update()

    def tips(self, a: tuple[float, float], b: tuple[float, float]) -> tuple[Point, Point]:
        """Where the drawn edge starts and ends for output point ``a`` and input point ``b``:
        the arrow heads stop at the ports' rims."""
        return (a[0] + (PORT_GAP if self.bidirectional else 0), a[1]), (b[0] - PORT_GAP, b[1])

    def defer(self, a: tuple[float, float], b: tuple[float, float], reach: QRectF) -> None:
        """Put routing off until the edge is first needed; ``router`` then routes it.

        Until then the edge claims ``reach`` (where its route is searched first), so a
        view that shows any of it paints, and so routes, the edge.
        """
        start, end = self.tips(a, b)
        self._ends = (start, start, end, end)
        self.route = None
        self._path = QPainterPath()
        self.setRect(reach)
        self._extras = None
        self.pending = True

    def ensure_routed(self) -> None:
        """Route the edge now if its routing was put off."""
        if self.pending:
            self.pending = False
            if self.router is not None:
                self.router(self)

    def ends(self) -> tuple[Point, Point]:
        """Where the drawn edge starts and ends (scene x, y), routed or not."""
        return self._ends[0], self._ends[3]

    def path(self) -> QPainterPath:
        """The drawn route (routed first if it was put off)."""
        self.ensure_routed()
        return self._drawn()

    def _drawn(self) -> QPainterPath:
        """The route's Qt path, an S-curve's built on first use."""
        if self._path is None:
            (x, y), (c1x, c1y), (c2x, c2y), (ex, ey) = self._ends
            self._path = s_curve((c1x - x, c1y - y), (c2x - x, c2y - y),
                                 (ex - x, ey - y)).translated(x, y)
        return self._path

    def set_ends(self, a: tuple[float, float], b: tuple[float, float],
                 obstacles: list[Box] | None = None, source: Box | None = None,
                 target: Box | None = None, taken: list | None = None) -> None:
        """Route the edge from output point ``a`` to input point ``b`` (scene x, y) around
        ``obstacles`` (other nodes' boxes) and its own ends' boxes ``source`` and
        ``target``, beside the ``taken`` segments of other edges."""
        start, end = self.tips(a, b)
        self._take(route(start, end, obstacles or [], source, target, taken),
                   (obstacles, source, target))

    def set_curve(self, a: tuple[float, float], b: tuple[float, float], obstacles: list[Box],
                  source: Box, target: Box) -> bool:
        """Draw the edge as a plain S-curve from output point ``a`` to input point ``b`` if
        that crosses none of ``obstacles``; False (and nothing changed) if it would."""
        start, end = self.tips(a, b)
        found = clear_curve(start, end, obstacles)
        if found is None:
            return False
        self._take(found, (obstacles, source, target))
        return True

    def _take(self, found: Route, keep_clear: tuple) -> None:
        """Draw ``found``, keeping the label off the boxes in ``keep_clear``."""
        self.pending = False
        self.route = found
        self._keep_clear = keep_clear  # for the label, built when drawn
        start, end = found.points[0], found.points[-1]
        if found.controls is not None:
            c1, c2 = found.controls
            self._ends = (start, c1, c2, end)
            self._path = None  # built when first drawn
            # the controls pull out level with the ends: two of the four points bound each
            left, right = min(start[0], c2[0]), max(c1[0], end[0])
            top, bottom = (start[1], end[1]) if start[1] <= end[1] else (end[1], start[1])
        else:
            points = [QPointF(*p) for p in found.points]
            path = QPainterPath(points[0])
            _rounded(path, points)
            ps = found.points
            self._ends = (ps[0], ps[1], ps[-2], ps[-1])
            self._path = path
            xs, ys = [p[0] for p in ps], [p[1] for p in ps]
            left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)
        # the route lies inside its points' hull; the label box is added when built
        self.setRect(left - ARROW, top - ARROW - 10, right - left + 2 * ARROW,
                     bottom - top + 2 * ARROW + 20)
        self._extras = None

    def _detail(self) -> tuple[list[QPolygonF], QRectF, QPainterPath]:
        """Arrow heads, label box and hit-test outline, built when first needed."""
        self.ensure_routed()
        if self._extras is None:
            start, c1, c2, end = (QPointF(*p) for p in self._ends)
            arrows = [arrow_head(end, c2 if c2 != end else start)]
            if self.bidirectional:
                arrows.append(arrow_head(start, c1 if c1 != start else end))
            path = self._drawn()
            rect = QRectF()
            if self.label:
                width = QFontMetricsF(_label_font()).horizontalAdvance(self.label) + 14
                if self.route is not None:
                    obstacles, source, target = self._keep_clear
                    clear = [*(obstacles or []), *(b for b in (source, target) if b)]
                    x, y = label_spot(self.route, (width, 18), clear)
                    mid = QPointF(x, y)
                else:
                    mid = path.pointAtPercent(0.5)
                rect = QRectF(mid.x() - width / 2, mid.y() - 9, width, 18)
            stroker = QPainterPathStroker()
            stroker.setWidth(10)
            shape = stroker.createStroke(path)
            if not rect.isNull():
                shape.addRect(rect)
                bounds = self.rect()
                if not bounds.contains(rect):
                    self.setRect(bounds.united(rect))
            self._extras = (arrows, rect, shape)
        return self._extras

    def shape(self) -> QPainterPath:
        return self._detail()[2]

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        self.ensure_routed()  # the scene routes what a view exposes; this catches the rest
        look = self.look
        kind = "selected" if self.isSelected() else ("report" if self.report else "handoff")
        lod = painter.worldTransform().m11()
        if lod < 0.35:
            painter.setPen(look.edge[(kind, self.report, True)])
            painter.drawPath(self._drawn())
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen, brush = look.edge[(kind, self.report, False)], look.edge_brush[kind]
        if self.diff_mark and kind != "selected":
            pen, brush = look.diff_edge[(self.diff_mark, self.report)], \
                look.diff_brush[self.diff_mark]
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self._drawn())
        arrows, rect, _ = self._detail()
        painter.setPen(look.no_pen)
        painter.setBrush(brush)
        for poly in arrows:
            painter.drawPolygon(poly)
        if self.label and lod >= 0.5:
            painter.setPen(look.edge_label_pen[kind])
            painter.setBrush(look.canvas_brush)
            painter.drawRoundedRect(rect, 9, 9)
            painter.setFont(_label_font())
            painter.setPen(look.edge_label_pen["selected"] if kind == "selected" else look.text)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.label)


def _rounded(path: QPainterPath, points: list[QPointF]) -> None:
    """Add the polyline through ``points`` to ``path`` (which starts at the first point)
    with rounded corners."""
    for i in range(1, len(points) - 1):
        prev, corner, nxt = points[i - 1], points[i], points[i + 1]
        d_in = math.hypot(corner.x() - prev.x(), corner.y() - prev.y())
        d_out = math.hypot(nxt.x() - corner.x(), nxt.y() - corner.y())
        r = min(CORNER, d_in / 2, d_out / 2)
        if r < 0.5:
            path.lineTo(corner)
            continue
        before = corner + (prev - corner) * (r / d_in)
        after = corner + (nxt - corner) * (r / d_out)
        path.lineTo(before)
        path.quadTo(corner, after)
    path.lineTo(points[-1])
