"""The canvas scene: derived from the document model and kept in step by its signals.

Items never hold document state of their own; every gesture here becomes an
Editor call (an undoable command), and the scene then follows the model.

Edges are routed when first drawn, not when placed: a view routes the edges it is
about to show before it looks up what to paint (``drawBackground``), so a route that
leaves the area its edge first claimed is still drawn in that frame.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QTransform
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSceneContextMenuEvent,
    QGraphicsSceneMouseEvent,
)

from desktop.contract.enums import EdgeType
from desktop.disk.safe_json import loads as safe_loads
from desktop.ui.canvas.decorations import DecorationLayer
from desktop.ui.canvas.edge_item import EdgeItem, curve
from desktop.ui.canvas.look import Look
from desktop.ui.canvas.node_item import NODE_H, NODE_W, NodeItem
from desktop.ui.canvas.overview import OVERVIEW_MIN_NODES, Overview
from desktop.ui.canvas.routing import Box, BoxIndex, Point, segments
from desktop.ui.canvas.status_badge import BELOW
from desktop.ui.editor import Editor, snap
from desktop.ui.roles_cache import role_description, role_title
from desktop.ui.theme import LIGHT, Theme

SUBFLOW_HINT = "Double-click to open the subflow"

TEMPLATE_MIME = "application/x-agent-canvas-template"
SCENE_MARGIN = 2000.0
GRID_MAJOR = 100
# room kept around a card by edges and labels: the ENTRY pill above, the run status and
# summary below, the ports at the sides
CLEARANCE = (10.0, 10.0, 10.0, BELOW + 2.0)
NEAR = (240.0, 260.0)  # how far around an edge's ends other nodes are looked for first


def card_box(item: NodeItem) -> Box:
    """A node's card with the room edges keep around it, in scene coordinates."""
    pos = item.pos()
    return box_at(pos.x(), pos.y())


def ports(source: Box, target: Box) -> tuple[Point, Point]:
    """The output port of the ``source`` card's box and the input port of ``target``'s
    (from the boxes: asking Qt for positions costs more, thousands of times)."""
    left, top, right, _bottom = CLEARANCE
    return ((source.right - right, source.top + top + NODE_H / 2),
            (target.left + left, target.top + top + NODE_H / 2))


def box_at(x: float, y: float) -> Box:
    """The card at top-left ``(x, y)`` with the room edges keep around it."""
    left, top, right, bottom = CLEARANCE
    return Box(x - left, y - top, x + NODE_W + right, y + NODE_H + bottom)


def _node_key(item: QGraphicsItem | None) -> str | None:
    """The node ``item`` is, or hangs from: a document node's id, or the run's id of a
    node the run added (an item with a ``run_node_id``)."""
    while item is not None:
        key = item.node_id if isinstance(item, NodeItem) else getattr(item, "run_node_id", None)
        if isinstance(key, str):
            return key
        item = item.parentItem()
    return None


class CanvasScene(QGraphicsScene):
    """Shows an Editor's document; turns mouse gestures into Editor edits."""

    connectRefused = Signal(str)  # why a connection was not made
    emptyDoubleClicked = Signal(QPointF)
    subflowOpened = Signal(str)  # a subflow node was double-clicked: show its inside
    subflowAsked = Signal(QPointF)  # "Subflow…" dropped here: ask for its file
    connectionDroppedOnEmpty = Signal(str, QPointF)  # source node, scene point
    nodeMenuAsked = Signal(str, QPoint)  # a node right-clicked: its id, the screen point
    canvasMenuAsked = Signal(QPointF, QPoint)  # an edge or empty space: scene, screen point

    def __init__(self, editor: Editor, theme: Theme = LIGHT, parent=None):
        super().__init__(parent)
        self.editor = editor
        self.model = editor.model
        self.theme = theme
        self.look = Look(theme)
        self.nodes: dict[str, NodeItem] = {}
        self.edges: dict[str, EdgeItem] = {}
        self._touching: dict[str, set[str]] = {}
        self._ends: dict[str, tuple[str, str]] = {}
        self.cards = BoxIndex()  # where each node's card is: what edges route around
        # edges routed around something (not S-curves): where each reaches, and its segments
        self._orthogonal: dict[str, tuple[QRectF, list]] = {}
        self._pending: set[str] = set()  # edges placed but not routed yet
        self._drag: dict | None = None
        self._connect: dict | None = None
        self._rect_timer = QTimer(self, singleShot=True, interval=0)
        self._rect_timer.timeout.connect(self._update_rect)
        # a BSP index answers "what is in this rectangle" without asking every item
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.overview = Overview(self)
        self.overview_on = False
        m = self.model
        m.nodeAdded.connect(self._on_node_added)
        m.nodeRemoved.connect(self._on_node_removed)
        m.nodeChanged.connect(self._on_node_changed)
        m.nodesMoved.connect(self._on_nodes_moved)
        m.edgeAdded.connect(self._on_edge_added)
        m.edgeRemoved.connect(self._on_edge_removed)
        m.edgeChanged.connect(self._on_edge_changed)
        m.documentReset.connect(self.rebuild)
        m.changed.connect(self._on_changed)
        self.decorations = DecorationLayer(self)  # sticky notes and groups
        self.rebuild()

    # ---------------------------------------------------------------- following the model
    def rebuild(self) -> None:
        """Drop every item and build them again from the document."""
        self._drag = self._connect = None
        self.clear()
        self.nodes, self.edges, self._touching, self._ends = {}, {}, {}, {}
        self.cards.clear()
        self._orthogonal.clear()
        self._pending.clear()
        for node in self.model.doc.nodes:
            self._on_node_added(node.id)
        for key in self.model.edge_keys():
            self._on_edge_added(key)
        self.decorations.rebuild()
        self._update_rect()

    def _on_node_added(self, node_id: str) -> None:
        item = NodeItem(node_id, self.look)
        self.nodes[node_id] = item
        self._touching.setdefault(node_id, set())
        self._refresh_node(item)
        item.setVisible(not self.overview_on)
        self.addItem(item)
        self._rect_timer.start()

    def _on_node_removed(self, node_id: str) -> None:
        item = self.nodes.pop(node_id, None)
        self._touching.pop(node_id, None)
        self.cards.remove(node_id)
        if item is not None:
            self.removeItem(item)

    def _on_node_changed(self, node_id: str) -> None:
        item = self.nodes.get(node_id)
        if item is not None:
            self._refresh_node(item)
            for key in self._touching.get(node_id, ()):
                self._place_edge(self.edges[key])

    def _on_nodes_moved(self, node_ids: list[str]) -> None:
        keys: set[str] = set()
        for node_id in node_ids:
            item = self.nodes.get(node_id)
            if item is None:
                continue
            pos = self.model.node(node_id).position
            item.setPos(pos.x, pos.y)
            self.cards.set(node_id, box_at(pos.x, pos.y))
            keys.update(self._touching.get(node_id, ()))
        keys |= self.edges_near(node_ids)  # edges the moved nodes now stand in the way of
        for key in keys:
            self._place_edge(self.edges[key])
        self._rect_timer.start()

    def _on_changed(self) -> None:
        self.overview.invalidate()
        if self.overview_on:
            self.update()

    def set_overview(self, on: bool) -> None:
        """Draw the graph batched (far zoomed out) instead of item by item."""
        on = on and len(self.nodes) >= OVERVIEW_MIN_NODES
        if on != self.overview_on:
            # items stay top-level (the BSP index culls them); hiding them is a one-off cost
            self.overview_on = on
            for item in self.nodes.values():
                item.setVisible(not on)
            for item in self.edges.values():
                item.setVisible(not on and not item.dangling)
            self.update()

    def _refresh_node(self, item: NodeItem) -> None:
        node = self.model.node(item.node_id)
        config = self.model.config(item.node_id)
        summary = (config.instructions.strip().split("\n", 1)[0] if config and
                   config.instructions.strip() else role_description(node.role_template))
        if node.kind == "subflow":  # its file stands where an agent's provider would
            item.set_content(node.label or node.id, node.role_template, "Subflow",
                             node.flow or "", SUBFLOW_HINT, node.entry)
        else:
            item.set_content(node.label or node.id, node.role_template,
                             role_title(node.role_template), str(node.provider), summary,
                             node.entry)
        pos = node.position
        if pos is not None and (item.pos().x() != pos.x or item.pos().y() != pos.y):
            item.setPos(pos.x, pos.y)
        self.cards.set(item.node_id, box_at(pos.x, pos.y) if pos is not None
                       else card_box(item))

    def _on_edge_added(self, key: str) -> None:
        item = EdgeItem(key, self.look)
        item.router = self._route_edge
        self.edges[key] = item
        self._link(key)
        self._content_edge(item)
        self._place_edge(item)
        self.addItem(item)

    def _on_edge_removed(self, key: str) -> None:
        item = self.edges.pop(key, None)
        self._unlink(key)
        self._orthogonal.pop(key, None)
        self._pending.discard(key)
        if item is not None:
            self.removeItem(item)

    def _on_edge_changed(self, key: str) -> None:
        item = self.edges[key]
        self._unlink(key)
        self._link(key)
        self._content_edge(item)
        self._place_edge(item)

    def _link(self, key: str) -> None:
        edge = self.model.edge(key)
        self._ends[key] = (edge.from_, edge.to)
        self._touching.setdefault(edge.from_, set()).add(key)
        self._touching.setdefault(edge.to, set()).add(key)

    def _unlink(self, key: str) -> None:
        for end in self._ends.pop(key, ()):
            self._touching.get(end, set()).discard(key)

    def _content_edge(self, item: EdgeItem) -> None:
        edge = self.model.edge(item.key)
        item.set_content(edge.type == EdgeType.REPORT, edge.bidirectional, edge.label or "")

    def _place_edge(self, item: EdgeItem) -> None:
        """Show the edge between its nodes; it is routed when first drawn."""
        ends = self._end_boxes(item)
        if ends is None:
            return
        (sx, sy), (ex, ey) = start, end = ports(*ends[2:])
        x0, x1, y0, y1 = min(sx, ex), max(sx, ex), min(sy, ey), max(sy, ey)
        item.defer(start, end, QRectF(x0 - NEAR[0], y0 - NEAR[1],
                                      x1 - x0 + 2 * NEAR[0], y1 - y0 + 2 * NEAR[1]))
        self._pending.add(item.key)
        self._orthogonal.pop(item.key, None)  # its route is gone until it is drawn again

    def _end_boxes(self, item: EdgeItem) -> tuple[NodeItem, NodeItem, Box, Box] | None:
        """The edge's two nodes and their boxes; None (and the edge hidden) when one is
        missing."""
        edge = self.model.edge(item.key)
        a, b = self.nodes.get(edge.from_), self.nodes.get(edge.to)
        item.dangling = a is None or b is None
        if item.dangling:  # an edge to a missing node in a hand-written file: nothing to draw
            item.setVisible(False)
            return None
        item.setVisible(not self.overview_on)
        cards = self.cards.boxes
        return a, b, cards.get(a.node_id) or card_box(a), cards.get(b.node_id) or card_box(b)

    def route_in(self, rect: QRectF) -> None:
        """Route the edges still waiting for it that may be drawn in ``rect``."""
        if not self._pending:
            return
        for item in self.items(rect, Qt.ItemSelectionMode.IntersectsItemBoundingRect):
            if isinstance(item, EdgeItem) and item.pending:
                item.ensure_routed()

    def route_all(self) -> None:
        """Route every edge still waiting for it (before exporting the whole graph), in
        the document's order: a route keeps beside the edges routed before it."""
        if self._pending:
            for item in list(self.edges.values()):
                item.ensure_routed()

    def _route_edge(self, item: EdgeItem) -> None:
        """Route the edge around the nodes now in its way, beside other edges' lanes.

        Most edges are plain S-curves, routed thousands at a time by the first paint: their
        ends come from the scene's own records (not the model, not Qt), and an S-curve
        stays inside the area its edge claimed, so only other routes are checked for that.
        """
        key = item.key
        self._pending.discard(key)
        source_id, target_id = self._ends[key]
        boxes = self.cards.boxes
        source, target = boxes.get(source_id), boxes.get(target_id)
        if source is None or target is None:
            self._end_boxes(item)  # an end is missing: hides the edge
            return
        (sx, sy), (ex, ey) = start, end = ports(source, target)
        if ex > sx:  # a plain S-curve when the nodes between allow it
            top, bottom = (sy, ey) if sy <= ey else (ey, sy)
            between = self.cards.near(Box(sx - 1, top - 1, ex + 1, bottom + 1))
            between.pop(source_id, None)
            between.pop(target_id, None)
            if item.set_curve(start, end, list(between.values()), source, target):
                self._orthogonal.pop(key, None)
                return
        claimed = item.boundingRect()
        self._route(item, source_id, target_id, source, target)
        if not claimed.contains(item.boundingRect()):
            self._rect_timer.start()  # the route went further out than first claimed

    def _route(self, item: EdgeItem, source_id: str, target_id: str, source: Box,
               target: Box) -> None:
        """Route the edge orthogonally around the nodes near it, beside other routes."""
        (sx, sy), (ex, ey) = start, end = ports(source, target)
        x0, x1, y0, y1 = min(sx, ex), max(sx, ex), min(sy, ey), max(sy, ey)
        region = QRectF(x0 - NEAR[0], y0 - NEAR[1], x1 - x0 + 2 * NEAR[0],
                        y1 - y0 + 2 * NEAR[1])
        obstacles = self._cards_in(region, (source_id, target_id))
        taken = self._segments_in(region, item)
        for _ in range(3):  # a route that leaves the region may meet more nodes
            item.set_ends(start, end, list(obstacles.values()), source, target, taken)
            reach = item.boundingRect()
            if region.contains(reach):
                break
            region = region.united(reach.adjusted(-60, -60, 60, 60))
            more = self._cards_in(region, (source_id, target_id))
            if more.keys() <= obstacles.keys():
                break
            obstacles = more
        self._orthogonal[item.key] = (item.boundingRect(), segments(item.route))

    def _cards_in(self, rect: QRectF, skip: tuple[str, ...]) -> dict[str, Box]:
        """The boxes edges keep clear of, of the nodes in ``rect`` but those in ``skip``."""
        area = Box(rect.left(), rect.top(), rect.right(), rect.bottom())
        return {k: b for k, b in self.cards.near(area).items() if k not in skip}

    def _segments_in(self, rect: QRectF, item: EdgeItem) -> list:
        """The straight segments of other edges' orthogonal routes that pass ``rect``."""
        out = []
        for key, (reach, lines) in self._orthogonal.items():
            if key != item.key and reach.intersects(rect):
                out += lines
        return out

    def edges_near(self, node_ids: list[str]) -> set[str]:
        """Edges whose drawing passes where these nodes now are (to route them again)."""
        keys: set[str] = set()
        for node_id in node_ids:
            item = self.nodes.get(node_id)
            if item is None:
                continue
            box = card_box(item)
            rect = QRectF(box.left, box.top, box.right - box.left, box.bottom - box.top)
            keys.update(i.key for i in self.items(
                rect, Qt.ItemSelectionMode.IntersectsItemBoundingRect)
                if isinstance(i, EdgeItem) and i.key in self.edges)
        return keys

    def update_extent(self) -> None:
        """Recount how far the canvas scrolls, now: after items were added from outside
        the document (the nodes a run spawned, desktop/ui/run/canvas_overlay.py)."""
        self._update_rect()

    def _update_rect(self) -> None:
        bounds = self.itemsBoundingRect() if self.nodes else QRectF(0, 0, NODE_W, NODE_H)
        self.setSceneRect(bounds.adjusted(-SCENE_MARGIN, -SCENE_MARGIN,
                                          SCENE_MARGIN, SCENE_MARGIN))

    # ---------------------------------------------------------------- appearance
    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.look = Look(theme)
        for item in (*self.nodes.values(), *self.edges.values()):
            item.look = self.look
            item.update()
        self.decorations.update_all()
        self.update()

    def set_problems(self, counts: dict[str, tuple[int, int]]) -> None:
        """Show per-node (errors, warnings) badges."""
        for node_id, item in self.nodes.items():
            item.set_problems(*counts.get(node_id, (0, 0)))

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        """The grid: 1 px lines, two batched calls, no antialiasing."""
        if not self.overview_on:  # before Qt looks up what to paint: see the module's docstring
            self.route_in(rect)
        painter.fillRect(rect, self.look.canvas_brush)
        scale = painter.worldTransform().m11()
        if scale >= 0.15:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            fine = scale >= 0.6
            step = 20 if fine else GRID_MAJOR
            left, top = int(rect.left()) // step * step, int(rect.top()) // step * step
            minor, major = [], []
            for x in range(left, int(rect.right()) + 1, step):
                (major if x % GRID_MAJOR == 0 else minor).append(
                    QLineF(x, rect.top(), x, rect.bottom()))
            for y in range(top, int(rect.bottom()) + 1, step):
                (major if y % GRID_MAJOR == 0 else minor).append(
                    QLineF(rect.left(), y, rect.right(), y))
            if minor:
                painter.setPen(self.look.grid_minor_pen)
                painter.drawLines(minor)
            painter.setPen(self.look.grid_major_pen)
            painter.drawLines(major)
        if self.overview_on:
            self.overview.draw(painter, rect)

    # ---------------------------------------------------------------- selection
    def selected_node_ids(self) -> list[str]:
        return [i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)]

    def selected_edge_keys(self) -> list[str]:
        return [i.key for i in self.selectedItems() if isinstance(i, EdgeItem)]

    def select(self, node_ids: list[str], edge_keys: list[str] = ()) -> None:
        self.blockSignals(True)
        self.clearSelection()
        for node_id in node_ids:
            if node_id in self.nodes:
                self.nodes[node_id].setSelected(True)
        for key in edge_keys:
            if key in self.edges:
                self.edges[key].setSelected(True)
        self.blockSignals(False)
        self.selectionChanged.emit()

    def node_at(self, pos: QPointF) -> NodeItem | None:
        for item in self.items(pos, Qt.ItemSelectionMode.IntersectsItemShape,
                               Qt.SortOrder.DescendingOrder, QTransform()):
            if isinstance(item, NodeItem):
                return item
        return None

    def contextMenuEvent(self, event: QGraphicsSceneContextMenuEvent) -> None:
        """A node right-clicked asks for its menu (desktop/ui/canvas_menu.py), a node the
        run added included (an item with a ``run_node_id``); a note or a group offers its
        own; an edge or empty space asks for the canvas's."""
        for item in self.items(event.scenePos(), Qt.ItemSelectionMode.IntersectsItemShape,
                               Qt.SortOrder.DescendingOrder, QTransform()):
            key = _node_key(item)  # the card, or what hangs from it (its status, branch)
            if key is not None:
                self.nodeMenuAsked.emit(key, event.screenPos())
                event.accept()
                return
        event.ignore()
        super().contextMenuEvent(event)
        if not event.isAccepted():
            self.canvasMenuAsked.emit(event.scenePos(), event.screenPos())
            event.accept()

    def edge_at(self, pos: QPointF) -> str | None:
        """The key of the edge drawn at ``pos``, or None."""
        for item in self.items(pos, Qt.ItemSelectionMode.IntersectsItemShape,
                               Qt.SortOrder.DescendingOrder, QTransform()):
            if isinstance(item, EdgeItem):
                return item.key
        return None

    # ---------------------------------------------------------------- gestures
    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        pos = event.scenePos()
        item = self.node_at(pos) if event.button() == Qt.MouseButton.LeftButton else None
        read_only = self.editor.read_only  # a run's graph: select, never drag or connect
        if item is not None and not read_only and item.on_out_port(item.mapFromScene(pos)):
            self._start_connect(item, pos, event.modifiers())
            event.accept()
            return
        super().mousePressEvent(event)
        if item is not None and item.isSelected() and not read_only:
            # selected notes and groups (and what lies in those groups) move along
            nodes, decorations = self.decorations.drag_origins()
            self._drag = {"start": pos, "origin": nodes, "decorations": decorations,
                          "anchor": item.node_id}

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._connect is not None:
            self._update_connect(event.scenePos())
            return
        if self._drag is not None and event.buttons() & Qt.MouseButton.LeftButton:
            self._drag_to(event.scenePos(), event.modifiers())
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._connect is not None:
            self._finish_connect(event.scenePos())
            return
        self._drag = None
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.itemAt(event.scenePos(), QTransform()) is None:
            self.emptyDoubleClicked.emit(event.scenePos())
            return
        subflow = self.subflow_at(event.scenePos())
        if subflow is not None:
            self.subflowOpened.emit(subflow)
            return
        super().mouseDoubleClickEvent(event)

    def subflow_at(self, pos: QPointF) -> str | None:
        """The id of the subflow node whose card is at ``pos`` (its badges included)."""
        item = self.itemAt(pos, QTransform())
        while item is not None and not isinstance(item, NodeItem):
            item = item.parentItem()
        node = self.model.node(item.node_id) if item is not None else None
        return node.id if node is not None and node.kind == "subflow" else None

    def _drag_to(self, pos: QPointF, modifiers) -> None:
        d = self._drag
        delta = pos - d["start"]
        ax, ay = d["origin"][d["anchor"]]
        nx, ny = ax + delta.x(), ay + delta.y()
        if self.editor.snap_to_grid and not modifiers & Qt.KeyboardModifier.AltModifier:
            nx, ny = snap(nx), snap(ny)
        dx, dy = nx - ax, ny - ay
        new = {i: (x + dx, y + dy) for i, (x, y) in d["origin"].items()}
        decorations = {k: (x + dx, y + dy) for k, (x, y) in d["decorations"].items()}
        if decorations:
            self.editor.move_items(new, decorations)
        else:
            self.editor.move(new)

    def _start_connect(self, item: NodeItem, pos: QPointF, modifiers) -> None:
        report = bool(modifiers & Qt.KeyboardModifier.ShiftModifier)
        line = QGraphicsPathItem()
        pen = QPen(QColor(self.theme.accent), 2)
        if report:
            pen.setStyle(Qt.PenStyle.DashLine)
        line.setPen(pen)
        line.setZValue(10)
        self.addItem(line)
        self._connect = {"source": item.node_id, "line": line, "target": None,
                         "type": EdgeType.REPORT if report else EdgeType.HANDOFF}
        self._update_connect(pos)

    def _update_connect(self, pos: QPointF) -> None:
        c = self._connect
        src = self.nodes[c["source"]]
        target = self.node_at(pos)
        if target is src:
            target = None
        if c["target"] is not None and c["target"] is not target:
            c["target"].set_drop_state(0)
        c["target"] = target
        end = pos
        if target is not None:
            why = self.editor.connection_problem(c["source"], target.node_id, c["type"])
            target.set_drop_state(-1 if why else 1)
            if not why:
                end = target.pos() + target.in_port()
        path = curve(src.pos() + src.out_port(), end)
        c["line"].setPath(path)

    def _finish_connect(self, pos: QPointF) -> None:
        c, self._connect = self._connect, None
        self.removeItem(c["line"])
        target = c["target"]
        if target is None:
            if self.node_at(pos) is None:
                self.connectionDroppedOnEmpty.emit(c["source"], pos)
            return
        target.set_drop_state(0)
        why = self.editor.connection_problem(c["source"], target.node_id, c["type"])
        if why:
            self.connectRefused.emit(why)
            return
        key = self.editor.connect(c["source"], target.node_id, c["type"])
        if key:
            self.select([], [key])

    def cancel_gesture(self) -> None:
        if self._connect is not None:
            if self._connect["target"] is not None:
                self._connect["target"].set_drop_state(0)
            self.removeItem(self._connect["line"])
            self._connect = None

    # ---------------------------------------------------------------- drops from the palette
    def _takes(self, event) -> bool:
        """Whether a palette entry dragged here can be dropped (never on a run's graph)."""
        return event.mimeData().hasFormat(TEMPLATE_MIME) and not self.editor.read_only

    def dragEnterEvent(self, event) -> None:
        event.setAccepted(self._takes(event))

    def dragMoveEvent(self, event) -> None:
        event.setAccepted(self._takes(event))

    def dropEvent(self, event) -> None:
        data = event.mimeData()
        if not self._takes(event):
            event.ignore()
            return
        try:  # another program can drop anything under our MIME type
            spec = safe_loads(bytes(data.data(TEMPLATE_MIME)))
        except ValueError:
            spec = None
        if not isinstance(spec, dict):
            event.ignore()
            return
        self.drop_template(spec, event.scenePos())
        event.acceptProposedAction()

    def drop_template(self, spec: dict, pos: QPointF) -> str | None:
        """A palette entry dropped at ``pos``: a provider onto a node sets its provider."""
        if spec.get("kind") == "note":
            return self.editor.add_note((pos.x(), pos.y()))
        if spec.get("kind") == "group":
            return self.editor.add_group((pos.x(), pos.y()))
        if spec.get("kind") == "subflow":  # its file is asked for, then the node added
            self.subflowAsked.emit(pos)
            return None
        if spec.get("kind") == "provider":
            target = self.node_at(pos)
            if target is not None:
                self.editor.set_provider(target.node_id, spec["name"])
                return target.node_id
            return self.editor.add_node("implementer", spec["name"], (pos.x(), pos.y()))
        return self.editor.add_node(spec.get("name", "implementer"), spec.get("provider",
                                    "scripted"), (pos.x(), pos.y()))

