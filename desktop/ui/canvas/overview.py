"""Far zoomed out on a big graph, the canvas draws it in a few batched calls.

Thousands of per-item paint() calls make a frame slow when every node is on
screen. Below a zoom threshold (and above a graph size) the scene hides its item
items and draws one filled path per role and one stroked path per edge type,
built once from the items' geometry and rebuilt only after an edit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem

from desktop.ui.canvas.node_item import NODE_H, NODE_W

if TYPE_CHECKING:
    from desktop.ui.canvas.scene import CanvasScene

OVERVIEW_ZOOM = 0.3
OVERVIEW_MIN_NODES = 400


class Overview:
    """The batched picture of a scene's nodes and edges."""

    def __init__(self, scene: CanvasScene):
        self.scene = scene
        self.dirty = True
        self.roles: dict[str, list[QRectF]] = {}
        self.edges: dict[bool, list[QLineF]] = {}

    def invalidate(self) -> None:
        self.dirty = True

    def _build(self) -> None:
        roles: dict[str, list[QRectF]] = {}
        for item in self.scene.nodes.values():
            p = item.pos()
            roles.setdefault(item.role, []).append(QRectF(p.x(), p.y(), NODE_W, NODE_H))
        edges: dict[bool, list[QLineF]] = {False: [], True: []}
        for item in self.scene.edges.values():
            if not item.dangling:
                (x0, y0), (x1, y1) = item.ends()
                edges[item.report].append(QLineF(x0, y0, x1, y1))
        self.roles, self.edges, self.dirty = roles, edges, False

    def draw(self, painter: QPainter, rect: QRectF) -> None:
        """Straight 1 px edges and flat node blocks, no antialiasing: legible, and fast."""
        if self.dirty:
            self._build()
        look = self.scene.look
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for kind, lines in (("handoff", self.edges[False]), ("report", self.edges[True])):
            if lines:
                pen = QPen(look.edge[(kind, False, True)].color(), 0)
                painter.setPen(pen)
                painter.drawLines(lines)
        painter.setPen(Qt.PenStyle.NoPen)
        for role, rects in self.roles.items():
            painter.setBrush(look.role(role)[1])
            painter.drawRects(rects)
        painter.setPen(QPen(look.selected_pen.color(), 0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for item in self.scene.selectedItems():
            if item.type() == QGraphicsItem.UserType + 1:
                painter.drawRect(item.sceneBoundingRect())
