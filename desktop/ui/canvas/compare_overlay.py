"""Compare mode: another workflow's differences drawn over the canvas.

What the open workflow adds relative to the other is marked green, what it changes
amber, and what it removes is drawn as red ghosts where the other workflow had it.
The overlay only reads the document: ghosts are items of its own, marks are a
paint flag on the items, and leaving compare mode takes both away. An edit while
comparing is compared again at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsPolygonItem
from shiboken6 import isValid

from desktop.graph.document import WorkflowDocument
from desktop.graph.flow_diff import FlowDiff, diff_flows, edge_key
from desktop.ui.canvas.edge_item import PORT_GAP, arrow_head, curve
from desktop.ui.canvas.node_item import NODE_H, NODE_W

if TYPE_CHECKING:
    from desktop.ui.canvas.scene import CanvasScene
    from desktop.ui.inspector import Inspector

GHOST_OPACITY = 0.6
GHOST_GAP = 40.0  # between ghosts of nodes the other workflow had no position for


class GhostNode(QGraphicsItem):
    """A node the open workflow removed, drawn dashed and faint where it was."""

    def __init__(self, node_id: str, label: str, color: QColor) -> None:
        super().__init__()
        self.node_id = node_id
        self.label = label or node_id
        self.color = color
        self.setOpacity(GHOST_OPACITY)
        self.setZValue(-2)  # under live nodes and edges where they overlap
        self.setToolTip(f"Removed: {node_id} is only in the compared workflow")
        self.label_font = QFont()
        self.label_font.setPixelSize(12)
        self.label_font.setStrikeOut(True)
        self.tag_font = QFont()
        self.tag_font.setPixelSize(9)
        self.tag_font.setWeight(QFont.Weight.Bold)

    def boundingRect(self) -> QRectF:
        return QRectF(-2, -10, NODE_W + 4, NODE_H + 12)

    def paint(self, painter: QPainter, _option: Any, _widget: Any = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(self.color, 2.0, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(QColor(self.color.red(), self.color.green(), self.color.blue(), 28))
        painter.drawRoundedRect(QRectF(0, 0, NODE_W, NODE_H), 9, 9)
        painter.setFont(self.label_font)
        painter.setPen(self.color)
        painter.drawText(QRectF(18, 10, NODE_W - 30, 20), Qt.AlignmentFlag.AlignLeft,
                         self.label)
        painter.setFont(self.tag_font)
        painter.drawText(QRectF(18, 40, NODE_W - 30, 16), Qt.AlignmentFlag.AlignLeft,
                         "REMOVED")


class CompareOverlay(QObject):
    """Shows ``diff_flows(other, open document)`` on a scene and in its inspector."""

    def __init__(self, scene: CanvasScene, inspector: Inspector, other: WorkflowDocument,
                 other_name: str) -> None:
        super().__init__(scene)
        self.scene = scene
        self.inspector = inspector
        self.other = other
        self.other_name = other_name
        self.diff = FlowDiff()
        self.ghosts: dict[str, QGraphicsItem] = {}  # removed node id -> its ghost
        self.ghost_edges: list[QGraphicsItem] = []
        self.active = True
        scene.model.changed.connect(self.refresh)
        scene.model.documentReset.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Compare again and redraw the marks and ghosts."""
        if not self.active:
            return
        self._clear()
        self.diff = diff_flows(self.other, self.scene.model.doc)
        marks = {n.id: "added" for n in self.diff.added_nodes}
        marks.update({n.id: "changed" for n in self.diff.changed_nodes})
        for node_id, item in self.scene.nodes.items():
            item.set_diff_mark(marks.get(node_id))
        edge_marks = {e.id: "added" for e in self.diff.added_edges}
        edge_marks.update({e.id: "changed" for e in self.diff.changed_edges})
        model = self.scene.model
        for key, item in self.scene.edges.items():
            item.set_diff_mark(edge_marks.get(edge_key(model.edge_index(key), model.edge(key))))
        self._add_ghosts()
        self.inspector.set_compare(self.diff, self.other_name)

    def stop(self) -> None:
        """Leave compare mode: the canvas is drawn as before, the document untouched."""
        self.active = False
        model = self.scene.model
        model.changed.disconnect(self.refresh)
        model.documentReset.disconnect(self.refresh)
        self._clear()
        for item in (*self.scene.nodes.values(), *self.scene.edges.values()):
            item.set_diff_mark(None)
        self.inspector.set_compare(None)

    def bounds(self) -> QRectF:
        """Where the compared graph lies: every node on the canvas and every ghost."""
        rect = QRectF()
        for item in (*self.scene.nodes.values(), *self.ghosts.values()):
            rect = rect.united(item.sceneBoundingRect())
        return rect

    def ghost_items(self) -> list[QGraphicsItem]:
        """Every item this overlay added to the scene."""
        return [*self.ghosts.values(), *self.ghost_edges]

    # ---------------------------------------------------------------- ghosts
    def _clear(self) -> None:
        for item in self.ghost_items():
            if isValid(item) and item.scene() is self.scene:  # a rebuild may have cleared it
                self.scene.removeItem(item)
        self.ghosts, self.ghost_edges = {}, []

    def _add_ghosts(self) -> None:
        removed = self.scene.look.diff_pen["removed"].color()
        spare = self._spare_row()
        for node in self.diff.removed_nodes:
            ghost = GhostNode(node.id, node.label, removed)
            where = self.other.node(node.id).position
            if where is None:
                ghost.setPos(spare)
                spare += QPointF(NODE_W + GHOST_GAP, 0)
            else:
                ghost.setPos(where.x, where.y)
            self.scene.addItem(ghost)
            self.ghosts[node.id] = ghost
        for edge in self.diff.removed_edges:
            ends = self._card(edge.source), self._card(edge.target)
            if ends[0] is None or ends[1] is None:
                continue
            self._ghost_edge(ends[0] + QPointF(NODE_W, NODE_H / 2),
                             ends[1] + QPointF(-PORT_GAP, NODE_H / 2),
                             edge.type == "report", removed)

    def _card(self, node_id: str) -> QPointF | None:
        """Top-left of a node's card now on the canvas: live, else its ghost."""
        item = self.scene.nodes.get(node_id) or self.ghosts.get(node_id)
        return item.pos() if item is not None else None

    def _spare_row(self) -> QPointF:
        """Where ghosts without a recorded position go: a row under the graph."""
        items = list(self.scene.nodes.values())
        if not items:
            return QPointF(0, 0)
        bottom = max(i.pos().y() for i in items) + NODE_H + 2 * GHOST_GAP
        return QPointF(min(i.pos().x() for i in items), bottom)

    def _ghost_edge(self, a: QPointF, b: QPointF, report: bool, color: QColor) -> None:
        path = curve(a, b)
        pen = QPen(color, 2.0, Qt.PenStyle.DashLine if report else Qt.PenStyle.DotLine)
        line = QGraphicsPathItem(path)
        line.setPen(pen)
        head = QGraphicsPolygonItem(arrow_head(b, path.pointAtPercent(0.97)))
        head.setPen(QPen(Qt.PenStyle.NoPen))
        head.setBrush(color)
        for item in (line, head):
            item.setOpacity(GHOST_OPACITY)
            item.setZValue(-2)
            item.setToolTip("Removed: this edge is only in the compared workflow")
            self.scene.addItem(item)
            self.ghost_edges.append(item)
