"""A minimap in the corner of the canvas: every node as a dot, the viewport as a frame."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QWidget

from desktop.ui.canvas.node_item import NODE_H, NODE_W
from desktop.ui.canvas.view import CanvasView

SIZE = (168, 108)
MIN_VIEW = (820, 520)  # a smaller canvas has no room to spare for it
PAD = 8.0


class Minimap(QWidget):
    """Overview of the whole graph; click or drag in it to move the view."""

    def __init__(self, view: CanvasView):
        super().__init__(view)
        self.view = view
        self.setFixedSize(*SIZE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self._image = QImage()
        self._bounds = QRectF()
        self._scale = 1.0
        self._timer = QTimer(self, singleShot=True, interval=120)
        self._timer.timeout.connect(self.rebuild)
        model = view.canvas().model
        for signal in (model.nodeAdded, model.nodeRemoved, model.nodesMoved,
                       model.nodeChanged, model.documentReset):
            signal.connect(self._timer.start)
        view.viewportMoved.connect(self.update)
        view.zoomChanged.connect(self.update)
        view.viewport().installEventFilter(self)  # docks resize it, not only the window
        self.rebuild()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.view.viewport():
            self.place()
        return False

    def place(self) -> None:
        """Keep the minimap in the bottom-right corner of the view (if there is room)."""
        vp = self.view.viewport().geometry()
        self.move(vp.right() - SIZE[0] - 12, vp.bottom() - SIZE[1] - 12)
        roomy = vp.width() >= MIN_VIEW[0] and vp.height() >= MIN_VIEW[1]
        self.setVisible(self.wanted and roomy)

    wanted = True

    def set_wanted(self, on: bool) -> None:
        """The user's choice (View > Minimap); shown when the canvas is big enough."""
        self.wanted = on
        self.place()

    def rebuild(self) -> None:
        """Redraw the node dots into an image (only when the graph changed)."""
        scene = self.view.canvas()
        nodes = scene.model.doc.nodes
        theme = scene.theme
        xs = [n.position.x for n in nodes if n.position]
        ys = [n.position.y for n in nodes if n.position]
        if not xs:
            self._bounds = QRectF()
            self._image = QImage()
            self.update()
            return
        bounds = QRectF(min(xs), min(ys), max(xs) - min(xs) + NODE_W, max(ys) - min(ys) + NODE_H)
        self._bounds = bounds.adjusted(-40, -40, 40, 40)
        w, h = SIZE[0] - 2 * PAD, SIZE[1] - 2 * PAD
        self._scale = min(w / self._bounds.width(), h / self._bounds.height())
        image = QImage(SIZE[0], SIZE[1], QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        p = QPainter(image)
        s, ox, oy = self._scale, self._bounds.left(), self._bounds.top()
        nw, nh = max(2.0, NODE_W * s), max(2.0, NODE_H * s)
        for n in nodes:
            if n.position is not None:
                p.fillRect(QRectF(PAD + (n.position.x - ox) * s, PAD + (n.position.y - oy) * s,
                                  nw, nh), theme.role_color(n.role_template))
        p.end()
        self._image = image
        self.update()

    def _to_scene(self, pt: QPointF) -> QPointF:
        return QPointF((pt.x() - PAD) / self._scale + self._bounds.left(),
                       (pt.y() - PAD) / self._scale + self._bounds.top())

    def paintEvent(self, event) -> None:
        theme = self.view.canvas().theme
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        bg = QColor(theme.base)
        bg.setAlpha(235)
        p.setPen(QPen(QColor(theme.border), 1))
        p.setBrush(bg)
        p.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 8, 8)
        if self._image.isNull():
            return
        p.drawImage(0, 0, self._image)
        vis = self.view.visible_scene_rect()
        s, ox, oy = self._scale, self._bounds.left(), self._bounds.top()
        frame = QRectF(PAD + (vis.left() - ox) * s, PAD + (vis.top() - oy) * s,
                       vis.width() * s, vis.height() * s).intersected(QRectF(self.rect()))
        accent = QColor(theme.accent)
        p.setPen(QPen(accent, 1.5))
        accent.setAlpha(30)
        p.setBrush(accent)
        p.drawRect(frame)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._jump(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._jump(event)

    def _jump(self, event: QMouseEvent) -> None:
        if not self._bounds.isNull():
            self.view.centerOn(self._to_scene(event.position()))
            self.update()
