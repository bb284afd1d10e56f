"""A run's graph drawn for comparison: each node's card with its final status, provider
and model, and the nodes set up differently from the other run marked.

The status line is muted text after a dot in the status colour: the theme's warning and
error colours are too light on a light card for 11 px text (2.8:1 and 4.4:1)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from desktop.ui import theme as themes
from desktop.ui.theme import Theme
from desktop.views.compare import RunDigest

CARD_W, CARD_H = 180.0, 58.0
GAP_X, GAP_Y = 80.0, 30.0
STATUS_COLOURS = {"failed": "error", "blocked": "warning", "running": "accent",
                  "waiting": "warning", "done": "ok"}


class GraphPicture(QWidget):
    """Paints one run's graph scaled to fit; ``changed`` keys get a warning border."""

    def __init__(self, theme: Theme | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme or themes.current()
        self.digest: RunDigest | None = None
        self.changed: set[str] = set()
        self.setMinimumSize(240, 140)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(480, 220)

    def set_theme(self, theme: Theme) -> None:
        """Draw in ``theme``'s colours from now on."""
        self.theme = theme
        self.update()

    def show_run(self, digest: RunDigest, changed: set[str]) -> None:
        self.digest, self.changed = digest, set(changed)
        self.update()

    def cards(self) -> dict[str, QRectF]:
        """Each node's card in graph coordinates (recorded position, else a row below)."""
        assert self.digest is not None
        out: dict[str, QRectF] = {}
        placed = [n for n in self.digest.nodes.values() if n.position is not None]
        bottom = max((n.position[1] for n in placed), default=-CARD_H - GAP_Y)
        spare = 0
        for node in self.digest.nodes.values():
            if node.position is not None:
                x, y = node.position
            else:  # added at run time without a place: a row under the others
                x, y = spare * (CARD_W + GAP_X), bottom + CARD_H + GAP_Y
                spare += 1
            out[node.key] = QRectF(x, y, CARD_W, CARD_H)
        return out

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(self.theme.canvas))
        if self.digest is None or not self.digest.nodes:
            painter.end()
            return
        cards = self.cards()
        bounds = QRectF()
        for rect in cards.values():
            bounds = bounds.united(rect)
        pad = 16.0
        scale = min((self.width() - 2 * pad) / max(bounds.width(), 1.0),
                    (self.height() - 2 * pad) / max(bounds.height(), 1.0), 1.2)
        painter.translate(self.width() / 2 - bounds.center().x() * scale,
                          self.height() / 2 - bounds.center().y() * scale)
        painter.scale(scale, scale)
        self._edges(painter, cards)
        self._cards(painter, cards)
        painter.end()

    def _edges(self, painter: QPainter, cards: dict[str, QRectF]) -> None:
        assert self.digest is not None
        for source, target, kind in self.digest.edges:
            a, b = cards.get(source), cards.get(target)
            if a is None or b is None:
                continue
            report = kind == "report"
            pen = QPen(QColor(self.theme.report if report else self.theme.handoff), 1.4)
            if report:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            start, end = QPointF(a.right(), a.center().y()), QPointF(b.left(), b.center().y())
            path = QPainterPath(start)
            if end.x() >= start.x():
                dx = (end.x() - start.x()) / 2
                path.cubicTo(start + QPointF(dx, 0), end - QPointF(dx, 0), end)
            else:  # going back: under the cards
                drop = QPointF(0, a.height() * 1.2)
                path.cubicTo(start + QPointF(24, 0) + drop, end - QPointF(24, 0) + drop, end)
            painter.drawPath(path)

    def _cards(self, painter: QPainter, cards: dict[str, QRectF]) -> None:
        assert self.digest is not None
        theme = self.theme
        metrics = painter.fontMetrics()
        for key, rect in cards.items():
            node = self.digest.nodes[key]
            changed = key in self.changed
            border = QColor(theme.warning if changed else theme.node_border)
            painter.setPen(QPen(border, 3.0 if changed else 1.0))
            painter.setBrush(QColor(theme.node))
            painter.drawRoundedRect(rect, 6, 6)
            stripe = QColor(theme.providers.get(node.provider, theme.muted))
            painter.fillRect(QRectF(rect.left() + 1, rect.top() + 6, 4, rect.height() - 12),
                             stripe)
            inner = rect.adjusted(12, 6, -8, -6)
            font = painter.font()
            font.setBold(True)
            painter.setFont(font)
            painter.setPen(QColor(theme.text))
            title = node.label + ("  · changed" if changed else "")
            painter.drawText(inner, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft,
                             metrics.elidedText(title, Qt.TextElideMode.ElideRight,
                                                int(inner.width())))
            font.setBold(False)
            painter.setFont(font)
            detail = f"{node.status} · {node.provider}" + (f" · {node.model}" if node.model
                                                           else "")
            text = inner
            if node.status in STATUS_COLOURS:  # the colour marks it; the words say it
                dot = metrics.height() * 0.45
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(getattr(theme, STATUS_COLOURS[node.status])))
                painter.drawEllipse(QRectF(inner.left(), inner.bottom() - metrics.height() / 2
                                           - dot / 2, dot, dot))
                text = inner.adjusted(dot + 5, 0, 0, 0)
            painter.setPen(QColor(theme.muted))
            painter.drawText(text, Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft,
                             metrics.elidedText(detail, Qt.TextElideMode.ElideRight,
                                                int(text.width())))
