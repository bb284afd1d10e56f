"""One painted item per node: no child items, cached paint, simpler drawing when zoomed out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem, QWidget

if TYPE_CHECKING:
    from desktop.ui.canvas.scene import CanvasScene

NODE_W = 184.0
NODE_H = 72.0
PORT_R = 5.5
PORT_HIT = 13.0
TEXT_LEFT = 18.0
_BODY = QRectF(0, 0, NODE_W, NODE_H)
_BOUNDS = _BODY.adjusted(-PORT_R - 3, -12, PORT_R + 12, 6)
NODE_TYPE = QGraphicsItem.UserType + 1


class _Fonts:
    """Fonts and metrics, built once a QApplication exists."""

    ready = False

    @classmethod
    def init(cls) -> None:
        if cls.ready:
            return
        cls.label = QFont()
        cls.label.setPixelSize(12)
        cls.label.setWeight(QFont.Weight.DemiBold)
        cls.small = QFont()
        cls.small.setPixelSize(11)
        cls.tiny = QFont()
        cls.tiny.setPixelSize(9)
        cls.tiny.setWeight(QFont.Weight.Bold)
        cls.label_m = QFontMetricsF(cls.label)
        cls.small_m = QFontMetricsF(cls.small)
        path = QPainterPath()
        path.addRoundedRect(_BODY, 9, 9)
        stripe = QPainterPath()
        stripe.addRect(QRectF(0, 0, 5, NODE_H))
        cls.stripe = path.intersected(stripe)
        cls.ready = True


def _elide(metrics: QFontMetricsF, text: str, width: float) -> str:
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


class NodeItem(QGraphicsItem):
    """Draws one node from the document; holds only strings derived from it for painting."""

    def __init__(self, node_id: str):
        super().__init__()
        _Fonts.init()
        self.node_id = node_id
        self.label = ""
        self.detail = ""
        self.summary = ""
        self.role = ""
        self.provider = ""
        self.mark = ""
        self.entry = False
        self.problems = (0, 0)  # (errors, warnings)
        self.drop_state = 0  # 1 valid connection target, -1 refused
        self.hover_port = False
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptHoverEvents(True)

    def type(self) -> int:
        return NODE_TYPE

    def set_content(self, label: str, role: str, role_title: str, provider: str,
                    summary: str, entry: bool) -> None:
        """Take the strings to draw; repaint only if they changed."""
        width = NODE_W - TEXT_LEFT - 30
        content = (
            _elide(_Fonts.label_m, label, width),
            _elide(_Fonts.small_m, f"{role_title}  ·  {provider}", NODE_W - TEXT_LEFT - 12),
            _elide(_Fonts.small_m, summary, NODE_W - TEXT_LEFT - 12),
            role, provider, entry,
        )
        if content != (self.label, self.detail, self.summary, self.role, self.provider,
                       self.entry):
            (self.label, self.detail, self.summary, self.role, self.provider,
             self.entry) = content
            self.mark = (provider[:1] or "?").upper()
            self.update()

    def set_problems(self, errors: int, warnings: int) -> None:
        if (errors, warnings) != self.problems:
            self.problems = (errors, warnings)
            self.update()

    def set_drop_state(self, state: int) -> None:
        if state != self.drop_state:
            self.drop_state = state
            self.update()

    # ---------------------------------------------------------------- geometry
    def boundingRect(self) -> QRectF:
        return _BOUNDS

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(_BODY.adjusted(-PORT_HIT / 2, 0, PORT_HIT / 2, 0))
        return path

    @staticmethod
    def in_port() -> QPointF:
        return QPointF(0, NODE_H / 2)

    @staticmethod
    def out_port() -> QPointF:
        return QPointF(NODE_W, NODE_H / 2)

    def on_out_port(self, local: QPointF) -> bool:
        """Whether a local point is on the output port (where connections start)."""
        d = local - self.out_port()
        return d.x() * d.x() + d.y() * d.y() <= PORT_HIT * PORT_HIT

    # ---------------------------------------------------------------- hover
    def hoverMoveEvent(self, event) -> None:
        over = self.on_out_port(event.pos())
        if over != self.hover_port:
            self.hover_port = over
            self.setCursor(Qt.CursorShape.CrossCursor if over else Qt.CursorShape.ArrowCursor)
            self.update()

    def hoverLeaveEvent(self, event) -> None:
        if self.hover_port:
            self.hover_port = False
            self.unsetCursor()
            self.update()

    # ---------------------------------------------------------------- painting
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        scene: CanvasScene = self.scene()  # type: ignore[assignment]
        t = scene.theme
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        role_color = t.role_color(self.role)
        if lod < 0.35:  # zoomed far out: a coloured block is all that can be read
            painter.setPen(QPen(QColor(t.accent), 4) if selected else Qt.PenStyle.NoPen)
            painter.setBrush(role_color)
            painter.drawRoundedRect(_BODY, 10, 10)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        border = QColor(t.accent) if selected else QColor(t.node_border)
        if self.drop_state:
            border = QColor(t.ok if self.drop_state > 0 else t.error)
        painter.setPen(QPen(border, 2.0 if selected or self.drop_state else 1.0))
        painter.setBrush(QColor(t.node))
        painter.drawRoundedRect(_BODY, 9, 9)
        painter.fillPath(_Fonts.stripe, role_color)
        # provider mark
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(t.provider_color(self.provider))
        mark = QRectF(NODE_W - 28, 9, 18, 18)
        painter.drawEllipse(mark)
        if lod >= 0.6:
            painter.setFont(_Fonts.tiny)
            painter.setPen(QColor("#ffffff"))
            painter.drawText(mark, Qt.AlignmentFlag.AlignCenter, self.mark)
            painter.setPen(QColor(t.text))
            painter.setFont(_Fonts.label)
            painter.drawText(QRectF(TEXT_LEFT, 8, NODE_W - TEXT_LEFT - 30, 20),
                             Qt.AlignmentFlag.AlignVCenter, self.label)
            painter.setFont(_Fonts.small)
            painter.setPen(QColor(t.muted))
            painter.drawText(QRectF(TEXT_LEFT, 29, NODE_W - TEXT_LEFT - 10, 16),
                             Qt.AlignmentFlag.AlignVCenter, self.detail)
            painter.drawText(QRectF(TEXT_LEFT, 47, NODE_W - TEXT_LEFT - 10, 16),
                             Qt.AlignmentFlag.AlignVCenter, self.summary)
        else:  # mid zoom: bars stand in for text
            painter.setBrush(QColor(t.muted))
            painter.drawRoundedRect(QRectF(TEXT_LEFT, 13, NODE_W * 0.5, 10), 4, 4)
        self._paint_ports(painter, t, role_color)
        self._paint_badges(painter, t)

    def _paint_ports(self, painter: QPainter, t, role_color: QColor) -> None:
        painter.setBrush(QColor(t.node))
        painter.setPen(QPen(QColor(t.node_border), 1.5))
        painter.drawEllipse(self.in_port(), PORT_R, PORT_R)
        painter.setPen(QPen(role_color, 2.0))
        painter.setBrush(role_color if self.hover_port else QBrush(QColor(t.node)))
        radius = PORT_R + 1.5 if self.hover_port else PORT_R
        painter.drawEllipse(self.out_port(), radius, radius)

    def _paint_badges(self, painter: QPainter, t) -> None:
        if self.entry:
            pill = QRectF(TEXT_LEFT, -8, 42, 15)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(t.accent))
            painter.drawRoundedRect(pill, 7, 7)
            painter.setFont(_Fonts.tiny)
            painter.setPen(QColor("#ffffff"))
            painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, "ENTRY")
        errors, warnings = self.problems
        if errors or warnings:
            color = QColor(t.error if errors else t.warning)
            badge = QRectF(NODE_W - 8, -8, 18, 18)
            painter.setPen(QPen(QColor(t.canvas), 2))
            painter.setBrush(color)
            painter.drawEllipse(badge)
            painter.setFont(_Fonts.tiny)
            painter.setPen(QColor("#ffffff"))
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, str(errors or warnings))
