"""The canvas view: zoom to the cursor, pan with the middle button or space+drag, fit."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QCursor, QMouseEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsTextItem, QGraphicsView

from desktop.ui.canvas.overview import OVERVIEW_ZOOM
from desktop.ui.canvas.scene import CanvasScene

MIN_ZOOM = 0.05
MAX_ZOOM = 3.0
ZOOM_STEP = 1.15


class CanvasView(QGraphicsView):
    """A QGraphicsView tuned for a large node graph."""

    zoomChanged = Signal(float)
    viewportMoved = Signal()
    quickAddRequested = Signal(QPointF)  # scene point under the cursor

    def __init__(self, scene: CanvasScene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlags(QGraphicsView.OptimizationFlag.DontSavePainterState
                                  | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAcceptDrops(True)
        self.setMouseTracking(True)
        self._pan_from: QPointF | None = None
        self._space = False
        self.horizontalScrollBar().valueChanged.connect(self.viewportMoved)
        self.verticalScrollBar().valueChanged.connect(self.viewportMoved)

    def canvas(self) -> CanvasScene:
        return self.scene()  # type: ignore[return-value]

    # ---------------------------------------------------------------- zoom
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, value: float, at: QPointF | None = None) -> None:
        """Zoom to ``value``, keeping the scene point under viewport point ``at`` in place
        (the view centre when None)."""
        value = max(MIN_ZOOM, min(MAX_ZOOM, value))
        factor = value / self.zoom()
        if abs(factor - 1) < 1e-9:
            return
        at = QPointF(self.viewport().rect().center()) if at is None else at
        fixed = self.mapToScene(at.toPoint())
        self.scale(factor, factor)
        moved = QPointF(self.mapFromScene(fixed)) - at
        self.pan_by(moved.x(), moved.y())
        self.canvas().set_overview(self.zoom() < OVERVIEW_ZOOM)
        self.zoomChanged.emit(self.zoom())
        self.viewportMoved.emit()

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom() * ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom() / ZOOM_STEP)

    def reset_zoom(self) -> None:
        self.set_zoom(1.0)

    def fit(self, rect: QRectF | None = None) -> None:
        """Fit ``rect`` (default: every node, the run's own included) in view, never
        zooming in past 100%."""
        if rect is None:
            scene = self.canvas()
            rect = QRectF()
            for item in scene.nodes.values():
                rect = rect.united(item.sceneBoundingRect())
            for item in scene.items():  # nodes a run added, drawn over the document's
                if getattr(item, "FITS_IN_VIEW", False):
                    rect = rect.united(item.sceneBoundingRect())
        if rect.isEmpty():
            self.reset_zoom()
            return
        rect = rect.adjusted(-60, -60, 60, 60)
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom() > 1.0:
            self.set_zoom(1.0)
        self.centerOn(rect.center())
        self.canvas().set_overview(self.zoom() < OVERVIEW_ZOOM)
        self.zoomChanged.emit(self.zoom())

    def center_on_node(self, node_id: str) -> None:
        item = self.canvas().nodes.get(node_id)
        if item is not None:
            self.centerOn(item.sceneBoundingRect().center())

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            bar = self.horizontalScrollBar()
            bar.setValue(bar.value() - event.angleDelta().y())
            return
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.set_zoom(self.zoom() * ZOOM_STEP ** steps, event.position())

    # ---------------------------------------------------------------- pan
    def _start_pan(self, event: QMouseEvent) -> None:
        self._pan_from = event.position()
        self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)

    def pan_by(self, dx: float, dy: float) -> None:
        """Scroll the view by (dx, dy) viewport pixels."""
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        h.setValue(h.value() + round(dx))
        v.setValue(v.value() + round(dy))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        middle = event.button() == Qt.MouseButton.MiddleButton
        if middle or (self._space and event.button() == Qt.MouseButton.LeftButton):
            self._start_pan(event)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            delta = event.position() - self._pan_from
            self._pan_from = event.position()
            self.pan_by(-delta.x(), -delta.y())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            self._pan_from = None
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor if self._space
                                      else Qt.CursorShape.ArrowCursor)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _typing(self) -> bool:
        """Whether a note or group title is being written on the canvas: keys are text."""
        scene = self.scene()
        focus = scene.focusItem() if scene is not None else None
        return isinstance(focus, QGraphicsTextItem) and bool(
            focus.textInteractionFlags() & Qt.TextInteractionFlag.TextEditable)

    def keyPressEvent(self, event) -> None:
        if self._typing():
            super().keyPressEvent(event)
            return
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            event.accept()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.canvas().cancel_gesture()
            self.canvas().clearSelection()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat() and self._space:
            self._space = False
            self.viewport().unsetCursor()
            event.accept()
            return
        super().keyReleaseEvent(event)

    def event(self, event) -> bool:
        """Tab on the canvas opens quick-add at the cursor instead of moving focus."""
        if (event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Tab
                and not event.modifiers() and not self._typing()):
            self.quickAddRequested.emit(self.cursor_scene_pos())
            return True
        return super().event(event)

    def cursor_scene_pos(self) -> QPointF:
        """The scene point under the mouse, or the view centre when the mouse is away."""
        local = self.viewport().mapFromGlobal(QCursor.pos())
        if not self.viewport().rect().contains(local):
            local = self.viewport().rect().center()
        return self.mapToScene(local)

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()
