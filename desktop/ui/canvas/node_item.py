"""One painted item per node: no child items, text laid out once, less detail zoomed out."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPainterPath, QStaticText, QTransform
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from desktop.ui.canvas.look import Look

NODE_W = 184.0
NODE_H = 72.0
PORT_R = 5.5
PORT_HIT = 13.0
TEXT_LEFT = 18.0
_BODY = QRectF(0, 0, NODE_W, NODE_H)
_BOUNDS = _BODY.adjusted(-PORT_R - 3, -12, PORT_R + 12, 6)
_MARK = QRectF(NODE_W - 28, 9, 18, 18)
_BAR = QRectF(TEXT_LEFT, 13, NODE_W * 0.5, 10)
ENTRY_PILL = QRectF(TEXT_LEFT, -8, 42, 15)
DIFF_PILL = QRectF(NODE_W - 80, -8, 62, 15)
PROBLEM_BADGE = QRectF(NODE_W - 8, -8, 18, 18)
NODE_TYPE = QGraphicsItem.UserType + 1


class _Fonts:
    """Fonts and metrics, built once a QApplication exists."""

    ready = False

    @classmethod
    def init(cls) -> None:
        """Build fonts on first use (a QApplication must exist by then)."""
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

    _shape: QPainterPath | None = None

    @classmethod
    def shape_path(cls) -> QPainterPath:
        if cls._shape is None:
            cls._shape = QPainterPath()
            cls._shape.addRect(_BODY.adjusted(-PORT_HIT / 2, 0, PORT_HIT / 2, 0))
        return cls._shape


def _elide(metrics: QFontMetricsF, text: str, width: float) -> str:
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


class NodeItem(QGraphicsRectItem):
    """Draws one node from the document; holds only strings derived from it for painting.

    Its bounds are the rectangle of a QGraphicsRectItem (which draws nothing of its own
    here), so that Qt, asking for them several times a frame, asks C++ and not Python.
    """

    look: Look  # set by the scene; shared painting resources of the theme

    def __init__(self, node_id: str, look: Look):
        super().__init__(_BOUNDS)
        self.setPen(Qt.PenStyle.NoPen)  # the bounds are the rectangle, no pen around it
        self.node_id = node_id
        self.look = look
        self.raw = ("", "", "", "", "")  # label, role title, provider, summary, role
        self.texts: tuple[QStaticText, QStaticText, QStaticText, str] | None = None
        self.role = ""
        self.provider = ""
        self.entry = False
        self.problems = (0, 0)  # (errors, warnings)
        self.drop_state = 0  # 1 valid connection target, -1 refused
        self.hover_port = False
        self.diff_mark: str | None = None  # compare mode: "added" or "changed"
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)

    def type(self) -> int:
        return NODE_TYPE

    def set_content(self, label: str, role: str, role_title: str, provider: str,
                    summary: str, entry: bool) -> None:
        """Take the strings to draw; they are laid out on first paint, repaint if changed."""
        raw = (label, role_title, provider, summary, role)
        if raw != self.raw or entry != self.entry:
            self.raw, self.role, self.provider, self.entry = raw, role, provider, entry
            self.texts = None  # laid out lazily: a zoomed-out view never needs the text
            self.update()

    @property
    def label(self) -> str:
        return self._texts()[0].text()

    def _texts(self) -> tuple[QStaticText, QStaticText, QStaticText, str]:
        if self.texts is None:
            _Fonts.init()
            label, role_title, provider, summary, _ = self.raw
            width = NODE_W - TEXT_LEFT - 30
            parts = (
                _elide(_Fonts.label_m, label, width),
                _elide(_Fonts.small_m, f"{role_title}  ·  {provider}", NODE_W - TEXT_LEFT - 12),
                _elide(_Fonts.small_m, summary, NODE_W - TEXT_LEFT - 12),
            )
            statics = []
            for text, font in zip(parts, (_Fonts.label, _Fonts.small, _Fonts.small),
                                  strict=True):
                st = QStaticText(text)
                st.setTextFormat(Qt.TextFormat.PlainText)
                st.prepare(QTransform(), font)
                statics.append(st)
            self.texts = (statics[0], statics[1], statics[2], (provider[:1] or "?").upper())
        return self.texts

    def set_problems(self, errors: int, warnings: int) -> None:
        if (errors, warnings) != self.problems:
            self.problems = (errors, warnings)
            self.update()

    def set_diff_mark(self, mark: str | None) -> None:
        """Mark the card as added or changed relative to a compared workflow (None: not)."""
        if mark != self.diff_mark:
            self.diff_mark = mark
            self.update()

    def set_drop_state(self, state: int) -> None:
        if state != self.drop_state:
            self.drop_state = state
            self.update()

    # ---------------------------------------------------------------- geometry
    def shape(self) -> QPainterPath:
        return _Fonts.shape_path()

    @staticmethod
    def body_rect() -> QRectF:
        """The card itself, without ports and badges."""
        return QRectF(_BODY)

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

    def badge_rects(self) -> list[QRectF]:
        """The badges shown across the card's top edge (ENTRY, the compare mark, the
        problem count), in item coordinates: what an outline around the card (a run's
        status ring) must leave clear for them to stay readable."""
        rects = []
        if self.entry:
            rects.append(QRectF(ENTRY_PILL))
        if self.diff_mark:
            rects.append(QRectF(DIFF_PILL))
        if self.problems != (0, 0):
            rects.append(QRectF(PROBLEM_BADGE))
        return rects

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
        # kept lean: thousands of these run per frame when zoomed out
        look = self.look
        selected = self.isSelected()
        lod = painter.worldTransform().m11()
        _, role_brush, role_pen = look.role(self.role)
        if lod < 0.35:  # zoomed far out: a coloured block is all that can be read
            painter.setPen(look.selected_far_pen if selected else look.no_pen)
            painter.setBrush(role_brush)
            painter.drawRect(_BODY)
            return
        if not _Fonts.ready:
            _Fonts.init()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.drop_state:
            painter.setPen(look.ok_pen if self.drop_state > 0 else look.refused_pen)
        elif self.diff_mark and not selected:
            painter.setPen(look.diff_pen[self.diff_mark])
        else:
            painter.setPen(look.selected_pen if selected else look.border_pen)
        painter.setBrush(look.node_brush)
        painter.drawRoundedRect(_BODY, 9, 9)
        painter.fillPath(_Fonts.stripe, role_brush)
        painter.setPen(look.no_pen)
        painter.setBrush(look.provider(self.provider))
        painter.drawEllipse(_MARK)
        if lod >= 0.6:
            label, detail, summary, mark = self._texts()
            painter.setFont(_Fonts.tiny)
            painter.setPen(look.white)
            painter.drawText(_MARK, Qt.AlignmentFlag.AlignCenter, mark)
            painter.setPen(look.text)
            painter.setFont(_Fonts.label)
            painter.drawStaticText(QPointF(TEXT_LEFT, 10), label)
            painter.setFont(_Fonts.small)
            painter.setPen(look.muted)
            painter.drawStaticText(QPointF(TEXT_LEFT, 31), detail)
            painter.drawStaticText(QPointF(TEXT_LEFT, 49), summary)
        else:  # mid zoom: bars stand in for text
            painter.setBrush(look.muted_brush)
            painter.drawRoundedRect(_BAR, 4, 4)
        self._paint_ports(painter, look, role_brush, role_pen)
        if self.entry or self.problems != (0, 0) or self.diff_mark:
            self._paint_badges(painter, look)

    def _paint_ports(self, painter: QPainter, look: Look, role_brush, role_pen) -> None:
        painter.setBrush(look.node_brush)
        painter.setPen(look.port_pen)
        painter.drawEllipse(self.in_port(), PORT_R, PORT_R)
        painter.setPen(role_pen)
        painter.setBrush(role_brush if self.hover_port else look.node_brush)
        radius = PORT_R + 1.5 if self.hover_port else PORT_R
        painter.drawEllipse(self.out_port(), radius, radius)

    def _paint_badges(self, painter: QPainter, look: Look) -> None:
        painter.setFont(_Fonts.tiny)
        if self.entry:
            self._paint_pill(painter, look, ENTRY_PILL, look.accent_brush, "ENTRY")
        if self.diff_mark:
            self._paint_pill(painter, look, DIFF_PILL, look.diff_brush[self.diff_mark],
                             self.diff_mark.upper())
        errors, warnings = self.problems
        if errors or warnings:
            brush = look.error_brush if errors else look.warning_brush
            painter.setPen(look.badge_pen)
            painter.setBrush(brush)
            painter.drawEllipse(PROBLEM_BADGE)
            painter.setPen(look.ink_on(brush.color()))
            painter.drawText(PROBLEM_BADGE, Qt.AlignmentFlag.AlignCenter, str(errors or warnings))

    @staticmethod
    def _paint_pill(painter: QPainter, look: Look, pill: QRectF, brush, text: str) -> None:
        painter.setPen(look.no_pen)
        painter.setBrush(brush)
        painter.drawRoundedRect(pill, 7, 7)
        painter.setPen(look.ink_on(brush.color()))
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
