"""A node's run status on its card: a ring in the status colour, a pill with an icon, the
status and how long ago the node was last active, the node's summary under it, and, for
a node in a git worktree of its own, its branch and how many commits it is ahead of the
run's base (``canvas/1a2b3c4d/impl  +3``), and, once the node spends or has a budget, its
budget meter (desktop/ui/canvas/usage_meter.py).

The statuses are those of :func:`desktop.views.activity.shown_status`. Icons are drawn as
paths (no font has to carry them). The ring is in the status colour; the pill is a
deeper shade of it with white text and icon, deep enough for the 11 px text to reach
WCAG's 4.5:1 (white on the ring colours themselves was 2.7:1 to 4.4:1), so it reads on
the light and the dark canvas alike. A quiet pill (idle, not run) is the theme's neutral
with the theme's text: nothing to look at, but still readable.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem

from desktop.ui import theme as themes
from desktop.ui.canvas.usage_meter import METER_H, paint_meter
from desktop.ui.theme import Theme, readable_on
from desktop.views.activity import DONE, NEXT, NOT_RUN, STOPPED, WAITING
from desktop.views.branches import BranchNote
from desktop.views.budget_meter import Meter
from desktop.views.tool_calls import AWAITING

STATUS_COLORS = {"running": "#2f80ed", AWAITING: "#c2185b", DONE: "#27ae60",
                 "failed": "#eb5757", "blocked": "#e67e22", STOPPED: "#6d6d6d",
                 WAITING: "#a86b00", NEXT: "#00897b", "idle": "#9e9e9e",
                 NOT_RUN: "#9e9e9e"}
QUIET = ("idle", NOT_RUN)  # no ring: nothing to look at
PILL_FILLS = {"running": "#1a6fe0", AWAITING: "#c2185b", DONE: "#1e7e45",
              "failed": "#c62828", "blocked": "#b35400", STOPPED: "#6d6d6d",
              WAITING: "#8a5800", NEXT: "#00796b"}
"""The pill under a ringed card: its status colour, deepened until white text on it
reads (4.5:1 or more)."""
PILL_INK = "#ffffff"


def pill_colours(status: str, theme: Theme) -> tuple[QColor, QColor]:
    """The fill and the ink (text and icon) of ``status``'s pill in ``theme``."""
    fill = PILL_FILLS.get(status)
    if fill is None:  # quiet (or unknown): the theme's neutral, not a status colour
        return QColor(theme.border), QColor(theme.text)
    return QColor(fill), QColor(PILL_INK)
PILL_H = 18.0
PILL_GAP = 5.0
SUMMARY_H = 14.0
BRANCH_H = 14.0
BELOW = PILL_GAP + PILL_H + 2 + SUMMARY_H + BRANCH_H  # under the card: edges keep clear
BADGE_MARGIN = 2.0  # the gap the ring leaves around a badge on the card's edge


def utc_now() -> datetime:
    """The time relative times are counted from (tests move it)."""
    return datetime.now(UTC)


def ago(ts: str | None, now: Callable[[], datetime] | None = None) -> str:
    """``12s ago``, ``3m ago``, ``2h ago`` since the ISO time ``ts`` ("" when unknown)."""
    if not ts:
        return ""
    try:
        then = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ""
    secs = max(0, int(((now or utc_now)() - then).total_seconds()))
    if secs < 120:
        return f"{secs}s ago"
    if secs < 120 * 60:
        return f"{secs // 60}m ago"
    return f"{secs // 3600}h ago"


def _pill_font() -> QFont:
    font = QFont()
    font.setPixelSize(11)
    font.setWeight(QFont.Weight.DemiBold)
    return font


def _small_font() -> QFont:
    font = QFont()
    font.setPixelSize(11)
    return font


def draw_branch_icon(painter: QPainter, box: QRectF, color: QColor) -> None:
    """A git branch mark in ``color`` inside ``box``: a trunk and a branch off it."""
    pen = QPen(color, 1.4)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    w, h = box.width(), box.height()
    trunk = box.left() + w * 0.3
    painter.drawLine(QPointF(trunk, box.top() + h * 0.2), QPointF(trunk, box.bottom() - h * 0.2))
    path = QPainterPath(QPointF(trunk, box.bottom() - h * 0.35))
    path.quadTo(QPointF(box.right() - w * 0.25, box.bottom() - h * 0.45),
                QPointF(box.right() - w * 0.25, box.top() + h * 0.3))
    painter.drawPath(path)
    painter.setBrush(color)
    r = w * 0.13
    for x, y in ((trunk, box.top() + h * 0.2), (trunk, box.bottom() - h * 0.2),
                 (box.right() - w * 0.25, box.top() + h * 0.3)):
        painter.drawEllipse(QPointF(x, y), r, r)


def draw_icon(painter: QPainter, status: str, box: QRectF, phase: int = 0,
              ink: QColor | None = None) -> None:
    """The status's icon in ``ink`` (white) inside ``box`` (a square)."""
    c = box.center()
    r = box.width() / 2
    ink = ink if ink is not None else QColor("white")
    pen = QPen(ink, max(1.6, r / 3.2))
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    if status == "running":  # a turning arc
        painter.drawArc(box.adjusted(1, 1, -1, -1), int(-phase * 15 * 16), 270 * 16)
    elif status == DONE:
        path = QPainterPath(QPointF(c.x() - r * 0.7, c.y()))
        path.lineTo(c.x() - r * 0.15, c.y() + r * 0.55)
        path.lineTo(c.x() + r * 0.75, c.y() - r * 0.6)
        painter.drawPath(path)
    elif status == "failed":
        d = r * 0.6
        painter.drawLine(QPointF(c.x() - d, c.y() - d), QPointF(c.x() + d, c.y() + d))
        painter.drawLine(QPointF(c.x() - d, c.y() + d), QPointF(c.x() + d, c.y() - d))
    elif status == STOPPED:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(ink)
        d = r * 0.6
        painter.drawRect(QRectF(c.x() - d, c.y() - d, 2 * d, 2 * d))
    elif status == NEXT:  # play: Step runs this one
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(ink)
        path = QPainterPath(QPointF(c.x() - r * 0.45, c.y() - r * 0.7))
        path.lineTo(c.x() + r * 0.75, c.y())
        path.lineTo(c.x() - r * 0.45, c.y() + r * 0.7)
        path.closeSubpath()
        painter.drawPath(path)
    elif status == WAITING:  # a clock
        painter.drawEllipse(box.adjusted(1, 1, -1, -1))
        painter.drawLine(c, QPointF(c.x(), c.y() - r * 0.5))
        painter.drawLine(c, QPointF(c.x() + r * 0.4, c.y()))
    elif status in (AWAITING, "blocked"):  # a question for a person; a problem
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(ink)
        font = QFont()
        font.setPixelSize(int(box.height()) + 1)
        font.setWeight(QFont.Weight.Black)
        painter.setFont(font)
        painter.setPen(ink)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, "?" if status == AWAITING else "!")
    else:  # idle, not run: an empty ring
        painter.drawEllipse(box.adjusted(2, 2, -2, -2))


class StatusBadge(QGraphicsItem):
    """The status ring, pill and summary of one node, drawn over and under its card."""

    def __init__(self, bounds: QRectF, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self.node_bounds = bounds
        self.status = "idle"
        self.summary = ""
        self.activity: str | None = None
        self.phase = 0
        self.clock: Callable[[], datetime] | None = None  # replay: the replayed moment
        self.branch: BranchNote | None = None  # the node's own branch, if it has one
        self.meter: Meter | None = None  # usage and budget share, once there is either
        self.text = self.caption()  # what the pill says now (kept current by refresh())
        self.setZValue(5)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def boundingRect(self) -> QRectF:
        # the meter line is not in BELOW: edges route as they did before runs spent
        return self.node_bounds.adjusted(-6, -6, 6, BELOW + METER_H + 2)

    def set_status(self, status: str, summary: str, activity: str | None) -> None:
        """Show ``status`` (see desktop.views.activity), the node's summary and last time."""
        if (status, summary, activity) != (self.status, self.summary, self.activity):
            self.status, self.summary, self.activity = status, summary, activity
            self.text = self.caption()
            self.update()

    def set_branch(self, branch: BranchNote | None) -> None:
        """Show the node's branch and how far it is ahead (None: no line); its tooltip
        names the branch whole, as the card may show it shortened."""
        if branch != self.branch:
            self.branch = branch
            self.setToolTip(branch.describe() if branch is not None else "")
            self.update()

    def set_meter(self, meter: Meter | None) -> None:
        """Show the node's budget meter (None: no meter line)."""
        if meter != self.meter:
            self.meter = meter
            self.update()

    def branch_text(self) -> str:
        """The branch line as it reads (elision aside): ``canvas/1a2b3c4d/impl  +3``."""
        if self.branch is None:
            return ""
        count = self.branch.count_text
        return f"{self.branch.branch}  {count}" if count else self.branch.branch

    def branch_shown(self, room: float) -> str:
        """The branch's name as the card shows it in ``room`` pixels: the longest of its
        forms that fits (views/branches.py), else the shortest cut at its end."""
        if self.branch is None:
            return ""
        metrics = QFontMetricsF(_small_font())
        forms = self.branch.forms()
        return next((form for form in forms if metrics.horizontalAdvance(form) <= room),
                    metrics.elidedText(forms[-1], Qt.TextElideMode.ElideRight, room))

    def refresh(self) -> bool:
        """Recount the relative time; True when the pill's text changed (and repaints)."""
        text = self.caption()
        if text == self.text:
            return False
        self.text = text
        self.update()
        return True

    @property
    def color(self) -> QColor:
        """The ring and pill colour of the current status."""
        return QColor(STATUS_COLORS.get(self.status, "#9e9e9e"))

    def caption(self) -> str:
        """The pill's text: the status and how long ago the node was last active."""
        when = ago(self.activity, self.clock)
        return self.status + (f" · {when}" if when else "")

    def pill_text(self, metrics: QFontMetricsF, room: float) -> str:
        """The pill's text as it fits in ``room`` pixels: whole when it fits, else the
        status cut short and the time whole (``awaiting appr… · 12m ago``), as the time
        is what changes while the status stays; the status alone when even that is too
        long."""
        if metrics.horizontalAdvance(self.text) <= room:
            return self.text
        when = ago(self.activity, self.clock)
        tail = f" · {when}" if when and self.text.endswith(when) else ""
        status = self.text.removesuffix(tail)
        left = room - metrics.horizontalAdvance(tail)
        if tail and left >= metrics.horizontalAdvance(status[:4] + "…"):
            return metrics.elidedText(status, Qt.TextElideMode.ElideRight, left) + tail
        return metrics.elidedText(status, Qt.TextElideMode.ElideRight, room)

    def theme(self) -> Theme:
        """The theme of the card it is on (the canvas's for a node added at run time)."""
        look = getattr(self.parentItem(), "look", None)
        if look is not None:
            return look.theme
        found = getattr(self.scene(), "theme", None)
        return found if isinstance(found, Theme) else themes.current()

    def _muted(self) -> QColor:
        look = getattr(self.parentItem(), "look", None)
        return QColor(look.muted) if look is not None else QColor("#666666")

    def kept_clear(self) -> QPainterPath:
        """Where the ring is not drawn: around the badges on the card's top edge (ENTRY,
        the problem count), which the ring would otherwise cross out; in item coordinates
        (the card's, whose child this is)."""
        rects = getattr(self.parentItem(), "badge_rects", None)
        clear = QPainterPath()
        for rect in (rects() if callable(rects) else []):
            clear.addRoundedRect(self.mapRectFromParent(rect).adjusted(
                -BADGE_MARGIN, -BADGE_MARGIN, BADGE_MARGIN, BADGE_MARGIN), 8, 8)
        return clear

    def paint(self, painter: QPainter, _option: Any, _widget: Any = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        color = self.color
        body = self.node_bounds
        if self.status not in QUIET:
            painter.save()
            clear = self.kept_clear()
            if not clear.isEmpty():  # the ring passes behind the badges, with a gap
                outside = QPainterPath()
                outside.addRect(self.boundingRect())
                painter.setClipPath(outside.subtracted(clear), Qt.ClipOperation.IntersectClip)
            pen = QPen(color, 4 if self.status in (AWAITING, NEXT) else 3)
            if self.status == "running":  # marching dashes: the running indicator
                pen.setStyle(Qt.PenStyle.DashLine)
                pen.setDashOffset(-self.phase)
            elif self.status == DONE:
                pen.setWidthF(2)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(body.adjusted(-4, -4, 4, 4), 11, 11)
            painter.restore()
        font = _pill_font()
        metrics = QFontMetricsF(font)
        text = self.pill_text(metrics, body.width() - PILL_H - 10)
        pill = QRectF(body.left(), body.bottom() + PILL_GAP,
                      PILL_H + metrics.horizontalAdvance(text) + 10, PILL_H)
        fill, ink = pill_colours(self.status, self.theme())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(pill, PILL_H / 2, PILL_H / 2)
        icon = QRectF(pill.left() + 4, pill.top() + 3, PILL_H - 6, PILL_H - 6)
        draw_icon(painter, self.status, icon, self.phase, ink)
        painter.setFont(font)
        painter.setPen(ink)
        painter.drawText(QRectF(icon.right() + 4, pill.top(), pill.width(), PILL_H),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
        top = pill.bottom() + 2
        if self.summary:
            painter.setPen(self._muted())
            small = _small_font()
            painter.setFont(small)
            line = QFontMetricsF(small).elidedText(" ".join(self.summary.split()),
                                                   Qt.TextElideMode.ElideRight, body.width())
            painter.drawText(QRectF(body.left(), top, body.width(), SUMMARY_H),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
            top += SUMMARY_H
        if self.branch is not None:
            self._paint_branch(painter, QRectF(body.left(), top, body.width(), BRANCH_H))
            top += BRANCH_H
        if self.meter is not None:
            paint_meter(painter, QRectF(body.left(), top, body.width(), METER_H), self.meter,
                        self._muted())

    def _paint_branch(self, painter: QPainter, row: QRectF) -> None:
        """The branch line: a branch mark, the branch (the longest of its forms that fits,
        so the node's name at its end stays) and, at the right, ``+N`` commits ahead of
        the base."""
        assert self.branch is not None
        muted = self._muted()
        small = _small_font()
        draw_branch_icon(painter, QRectF(row.left(), row.top() + 1, row.height() - 2,
                                         row.height() - 2), muted)
        left = row.left() + row.height() + 1
        count = self.branch.count_text
        bold = _small_font()
        bold.setWeight(QFont.Weight.DemiBold)
        width = QFontMetricsF(bold).horizontalAdvance(count) if count else 0.0
        room = row.right() - left - (width + 6 if count else 0)
        name = self.branch_shown(room)
        painter.setFont(small)
        painter.setPen(muted)
        align = Qt.AlignmentFlag.AlignVCenter
        painter.drawText(QRectF(left, row.top(), room, row.height()),
                         align | Qt.AlignmentFlag.AlignLeft, name)
        if count:
            painter.setFont(bold)
            # the theme's green as it reads on the canvas under the card: a fixed green
            # was 2.7:1 on the light canvas
            look = self.theme()
            painter.setPen(readable_on(look.ok, look.canvas) if self.branch.ahead else muted)
            painter.drawText(QRectF(row.right() - width - 2, row.top(), width + 2,
                                    row.height()), align | Qt.AlignmentFlag.AlignRight, count)

