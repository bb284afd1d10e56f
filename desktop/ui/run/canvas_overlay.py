"""Run status drawn over the canvas: node status rings, summaries, each node's git branch
and how many commits it is ahead of the run's base, each node's usage and budget meter,
envelopes in flight, and nodes and edges added while the run goes (dashed, marked
"run-time").

The overlay adds its own items to the editor's scene and never changes the
document: run-time additions belong to the run, not to the workflow.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene
from shiboken6 import isValid

from desktop.ui import theme as themes
from desktop.ui.canvas import status_badge
from desktop.ui.canvas.status_badge import STATUS_COLORS, StatusBadge
from desktop.ui.theme import Theme
from desktop.views.activity import StepOrder, node_activity
from desktop.views.branches import branch_note
from desktop.views.canvas_meters import CanvasMeters
from desktop.views.notices import HandoffSent
from desktop.views.state import RunProjection
from desktop.views.subflows import local_key
from desktop.views.tool_calls import AWAITING

__all__ = ["AWAITING", "STATUS_COLORS", "CanvasRunOverlay", "StatusBadge"]

RUNTIME_W, RUNTIME_H = 200.0, 84.0
FLIGHT_MS = 700
CLOCK_MS = 1000  # relative times ("12s ago") are recounted this often while shown


def _card_of(item: QGraphicsItem) -> QRectF:
    """The card's own rectangle (without its ports and badges), in item coordinates."""
    body = getattr(item, "body_rect", None)
    return body() if callable(body) else item.boundingRect()


def _theme_of(item: QGraphicsItem) -> Theme:
    """The theme of the canvas ``item`` is on (the editor's scene keeps its own), read at
    each paint so a change of theme reaches the run's additions too."""
    found = getattr(item.scene(), "theme", None)
    return found if isinstance(found, Theme) else themes.current()


class RuntimeNodeItem(QGraphicsItem):
    """A node the run added (spawn_node): dashed, labelled "run-time"."""

    FITS_IN_VIEW = True
    """The canvas's Fit shows it with the document's nodes (desktop/ui/canvas/view.py)."""

    def __init__(self, node_id: str, label: str) -> None:
        super().__init__()
        self.node_id = node_id
        self.run_node_id = node_id  # the canvas asks the run panels for its menu by it
        self.label = label
        self.setZValue(2)
        self.badge = StatusBadge(QRectF(0, 0, RUNTIME_W, RUNTIME_H), self)

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, RUNTIME_W, RUNTIME_H)

    def paint(self, painter: QPainter, _option: Any, _widget: Any = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        theme = _theme_of(self)
        pen = QPen(QColor(theme.runtime), 2, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(QBrush(QColor(theme.runtime_fill)))
        painter.drawRoundedRect(self.boundingRect(), 8, 8)
        painter.setPen(QColor(theme.text))
        painter.drawText(QRectF(10, 8, RUNTIME_W - 20, 22), Qt.AlignmentFlag.AlignLeft,
                         self.label)
        painter.setPen(QColor(theme.runtime))
        painter.drawText(QRectF(10, 32, RUNTIME_W - 20, 18), Qt.AlignmentFlag.AlignLeft,
                         "added at run time")


class LineItem(QGraphicsItem):
    """A straight edge the run created, or the path of an envelope in flight."""

    def __init__(self, a: QPointF, b: QPointF, dashed: bool = True) -> None:
        super().__init__()
        self.a, self.b, self.dashed = a, b, dashed
        self.progress: float | None = None  # 0..1 while an envelope travels
        self.setZValue(4)

    def boundingRect(self) -> QRectF:
        return QRectF(self.a, self.b).normalized().adjusted(-8, -8, 8, 8)

    def paint(self, painter: QPainter, _option: Any, _widget: Any = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        theme = _theme_of(self)
        if self.dashed:
            painter.setPen(QPen(QColor(theme.runtime), 2, Qt.PenStyle.DashLine))
            painter.drawLine(self.a, self.b)
        if self.progress is not None:
            p = self.a + (self.b - self.a) * self.progress
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(theme.ok))
            painter.drawEllipse(p, 7, 7)


class CanvasRunOverlay(QObject):
    """Keeps the overlay items of one run in step with its state and events."""

    def __init__(self, scene: QGraphicsScene, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.scene = scene
        self.badges: dict[str, StatusBadge] = {}
        self.runtime_nodes: dict[str, RuntimeNodeItem] = {}
        self.runtime_edges: dict[str, LineItem] = {}
        self.flights: list[tuple[LineItem, float]] = []
        self.state: dict | None = None
        self.scope: str | None = None  # the subflow node whose inside is shown; None: the top
        self.order = StepOrder()  # when inputs were queued (fed by the run panels)
        self.replaying = False  # times count from the replayed moment, not from now
        self.source: RunProjection | None = None  # what folds the states shown, when known
        self.meters = CanvasMeters()  # kept between updates: each redoes the nodes touched
        self._clock = QTimer(self)
        self._clock.setInterval(CLOCK_MS)
        self._clock.timeout.connect(self.refresh_times)
        self._tick = QTimer(self)
        self._tick.setInterval(50)  # 20 fps is plenty for dashes and dots
        self._tick.timeout.connect(self._animate)
        self._elapsed = 0.0

    # --- node geometry ------------------------------------------------------------------

    def _doc_items(self) -> dict[str, QGraphicsItem]:
        return getattr(self.scene, "nodes", {}) or {}

    def item_for(self, node_id: str) -> QGraphicsItem | None:
        """The canvas item showing run node ``node_id`` (document node or run-time one)."""
        node = ((self.state or {}).get("nodes") or {}).get(node_id) or {}
        if node.get("parent") != self.scope:
            return None  # inside another subflow than the one shown
        item = self._doc_items().get(local_key(self.state, node_id))
        return item if item is not None else self.runtime_nodes.get(node_id)

    def _center(self, node_id: str, side: str) -> QPointF | None:
        item = self.item_for(node_id)
        if item is None:
            return None
        r = item.sceneBoundingRect() if not isinstance(item, RuntimeNodeItem) else \
            item.mapRectToScene(item.boundingRect())
        return QPointF(r.right(), r.center().y()) if side == "out" else \
            QPointF(r.left(), r.center().y())

    def _free_spot(self, node_id: str, index: int) -> QPointF:
        """Where a node the run spawned goes: below the document's graph (its edges'
        loops included), right of the node that spawned it, so that the dashed line
        between them crosses no other card; further right for each one already there."""
        rect = QRectF()
        for item in [*self._doc_items().values(), *getattr(self.scene, "edges", {}).values()]:
            rect = rect.united(item.sceneBoundingRect())
        if not rect.isValid():
            return QPointF(0, index * (RUNTIME_H + 50))
        spawner = self._spawner(node_id)
        left = spawner.sceneBoundingRect().right() + 40 if spawner is not None else rect.left()
        return QPointF(left + index * (RUNTIME_W + 40), rect.bottom() + 50)

    def _spawner(self, node_id: str) -> QGraphicsItem | None:
        """The card of the node whose run-time edge leads to ``node_id``, if shown."""
        for edge in ((self.state or {}).get("edges") or {}).values():
            if edge.get("to") == node_id and edge.get("addedAtRuntime"):
                item = self.item_for(str(edge.get("from", "")))
                if item is not None and not isinstance(item, RuntimeNodeItem):
                    return item
        return None

    # --- following the run -------------------------------------------------------------------

    def apply_state(self, state: dict | None) -> None:
        """Show every node's status and the run-time nodes and edges of ``state``."""
        self.state = state
        # the editor may have rebuilt its scene, deleting our items with it
        self.badges = {k: v for k, v in self.badges.items() if isValid(v)}
        self.runtime_nodes = {k: v for k, v in self.runtime_nodes.items() if isValid(v)}
        self.runtime_edges = {k: v for k, v in self.runtime_edges.items() if isValid(v)}
        self.flights = [(d, t) for d, t in self.flights if isValid(d)]
        nodes = (state or {}).get("nodes") or {}
        activity = node_activity(state, order=self.order)
        clock = self._clock_of(state)
        metered = self.meters.update(state, self.source,
                                     clock() if clock else status_badge.utc_now())
        meters = self.meters.meters
        seen = set()
        added = False
        for node_id, node in nodes.items():
            if node.get("parent") != self.scope:
                continue  # drawn when its subflow is opened
            seen.add(node_id)
            item = self._doc_items().get(local_key(state, node_id))
            if item is None or node.get("addedAtRuntime"):
                rt = self.runtime_nodes.get(node_id)
                if rt is None:
                    rt = RuntimeNodeItem(node_id, node.get("label") or node_id[:8])
                    metered.add(node_id)  # a new card: its meter is not shown yet
                    pos = node.get("position")
                    rt.setPos(QPointF(*pos) if pos and item is None and
                              not node.get("addedAtRuntime") else
                              self._free_spot(node_id, len(self.runtime_nodes)))
                    self.scene.addItem(rt)
                    self.runtime_nodes[node_id] = rt
                    added = True
                badge = rt.badge
            else:
                badge = self.badges.get(node_id)
                if badge is None or badge.parentItem() is not item:
                    badge = StatusBadge(_card_of(item), item)
                    self.badges[node_id] = badge
                    metered.add(node_id)
            now = activity[node_id]
            badge.clock = clock
            badge.set_status(now.shown_status, now.summary, now.last_activity)
            badge.set_branch(branch_note(node))
            if node_id in metered:  # the others' meters have not changed
                badge.set_meter(meters.get(node_id))
            badge.refresh()
        for node_id in [n for n in self.runtime_nodes if n not in seen]:
            self.scene.removeItem(self.runtime_nodes.pop(node_id))
        extent = getattr(self.scene, "update_extent", None)
        if added and extent is not None:  # the canvas scrolls to the run's new nodes too
            extent()
        for node_id in [n for n in self.badges if n not in seen]:
            self._drop(self.badges.pop(node_id))
        self._sync_runtime_edges((state or {}).get("edges") or {})
        running = any(n.get("status") == "running" for n in nodes.values())
        if running or self.flights:
            self._tick.start()
        if nodes and not self._clock.isActive():
            self._clock.start()

    def replay_at(self, replaying: bool) -> None:
        """While replaying, "12s ago" counts back from the replayed moment, not now."""
        self.replaying = replaying

    def _clock_of(self, state: dict | None):
        if not self.replaying:
            return None
        try:
            moment = datetime.fromisoformat(str((state or {}).get("updatedAt", ""))
                                            .replace("Z", "+00:00"))
        except ValueError:
            return None
        return lambda: moment

    def _badges(self) -> list[StatusBadge]:
        return [b for b in [*self.badges.values(), *(r.badge for r in
                                                     self.runtime_nodes.values())]
                if isValid(b)]

    def refresh_times(self) -> None:
        """Recount every "12s ago" on the canvas (from a GUI-thread timer, while shown)."""
        if not any(view.isVisible() for view in self.scene.views()):
            return
        for badge in self._badges():
            badge.refresh()
        clock = self._clock_of(self.state)
        now = clock() if clock else status_badge.utc_now()
        for node_id in self.meters.tick(self.state, now):  # a running turn's time moves it
            item = self.runtime_nodes.get(node_id)
            badge = item.badge if item is not None else self.badges.get(node_id)
            if badge is not None and isValid(badge):
                badge.set_meter(self.meters.meters.get(node_id))

    def _sync_runtime_edges(self, edges: dict) -> None:
        for edge_id, edge in edges.items():
            if not edge.get("addedAtRuntime") or edge_id in self.runtime_edges:
                continue
            a, b = self._center(edge.get("from", ""), "out"), self._center(edge.get("to", ""),
                                                                           "in")
            if a is not None and b is not None:
                line = LineItem(a, b)
                self.scene.addItem(line)
                self.runtime_edges[edge_id] = line
        for edge_id in [e for e in self.runtime_edges if e not in edges]:
            self.scene.removeItem(self.runtime_edges.pop(edge_id))

    def handoff(self, notice: HandoffSent) -> None:
        """Animate an envelope travelling along its edge."""
        if len(self.flights) > 20:
            return
        a = self._center(notice.from_node, "out")
        b = self._center(notice.to_node, "in")
        if a is None or b is None:
            return
        dot = LineItem(a, b, dashed=False)
        dot.progress = 0.0
        self.scene.addItem(dot)
        self.flights.append((dot, self._elapsed))
        self._tick.start()

    def _animate(self) -> None:
        self._elapsed += self._tick.interval()
        for badge in self._badges():
            if badge.status == "running":
                badge.phase = (badge.phase + 2) % 24
                badge.update()
        alive = []
        for dot, started in self.flights:
            t = (self._elapsed - started) / FLIGHT_MS
            if t >= 1 or not isValid(dot):
                self._drop(dot)
                continue
            dot.progress = t
            dot.update()
            alive.append((dot, started))
        self.flights = alive
        nodes = ((self.state or {}).get("nodes") or {}).values()
        if not self.flights and not any(n.get("status") == "running" for n in nodes):
            self._tick.stop()

    def _drop(self, item: QGraphicsItem) -> None:
        if isValid(item) and item.scene() is not None:
            item.scene().removeItem(item)

    def clear(self) -> None:
        """Remove every overlay item (the run was closed)."""
        self._tick.stop()
        self._clock.stop()
        for badge in self.badges.values():
            self._drop(badge)
        for item in [*self.runtime_nodes.values(), *self.runtime_edges.values()]:
            self._drop(item)
        for dot, _t in self.flights:
            self._drop(dot)
        self.badges, self.runtime_nodes, self.runtime_edges, self.flights = {}, {}, {}, []
        self.state = None
        self.meters.clear()
