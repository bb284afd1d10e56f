"""The status pill under a node card ("done · 5m ago", "running", "failed", ...) is
readable in every status and both themes: its text, as drawn, reaches WCAG's 4.5:1
against the pill's fill (white on the status colours themselves was 2.7:1 to 4.4:1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from contrast import contrast
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QImage, QPainter

from desktop.graph.io import loads_workflow
from desktop.ui import theme
from desktop.ui.canvas.scene import CanvasScene
from desktop.ui.canvas.status_badge import (
    PILL_GAP,
    PILL_H,
    STATUS_COLORS,
    StatusBadge,
    _pill_font,
)
from desktop.ui.editor import Editor

FLOW = """
version: 1
name: Pills
task: go
nodes:
  - {id: lead, label: Lead, provider: scripted, entry: true, position: {x: 0, y: 0}}
"""
SCALE = 3  # the pill's 11 px text drawn large enough for its strokes to be solid ink
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
THEMES = [theme.LIGHT, theme.DARK]


def _badge(look: theme.Theme, status: str) -> tuple[CanvasScene, StatusBadge]:
    """A card's badge in ``status`` on ``look``'s canvas."""
    scene = CanvasScene(Editor(loads_workflow(FLOW)), look)
    item = scene.nodes["lead"]
    badge = StatusBadge(item.body_rect(), item)
    badge.clock = lambda: NOW
    badge.set_status(status, "", (NOW - timedelta(minutes=5)).isoformat())
    return scene, badge


def _drawn(scene: CanvasScene, badge: StatusBadge, rect: QRectF) -> QImage:
    """``rect`` of the badge (its coordinates) as the canvas draws it, SCALE times."""
    image = QImage(int(rect.width() * SCALE), int(rect.height() * SCALE),
                   QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.black)
    painter = QPainter(image)
    scene.render(painter, QRectF(image.rect()), badge.mapRectToScene(rect))
    painter.end()
    return image


def _pill(look: theme.Theme, status: str) -> tuple[QImage, float]:
    """The pill of a card in ``status`` as drawn on ``look``'s canvas (SCALE times), and
    where its text starts and ends (image x)."""
    scene, badge = _badge(look, status)
    body = badge.node_bounds
    image = _drawn(scene, badge, QRectF(body.left(), body.bottom() + PILL_GAP, body.width(),
                                        PILL_H))
    text_end = PILL_H + 2 + QFontMetricsF(_pill_font()).horizontalAdvance(badge.text)
    return image, text_end * SCALE


@pytest.mark.parametrize("look", THEMES, ids=lambda t: t.name)
@pytest.mark.parametrize("status", sorted(STATUS_COLORS))
def test_the_pill_text_reads_on_its_fill(qapp, look: theme.Theme, status: str) -> None:
    image, text_end = _pill(look, status)
    middle = image.height() // 2
    fill = image.pixelColor(int(2.5 * SCALE), middle)  # inside the round end, left of the icon
    # the strongest ink of the text against that fill: its strokes' cores, free of
    # antialiasing at this scale
    ink = max(contrast(image.pixelColor(x, y), fill)
              for y in range(SCALE * 4, image.height() - SCALE * 4)
              for x in range(int((PILL_H + 2) * SCALE), int(text_end)))
    assert ink >= 4.5, (look.name, status, fill.name(), round(ink, 2))


@pytest.mark.parametrize("look", THEMES, ids=lambda t: t.name)
def test_the_commits_ahead_beside_the_branch_read_on_the_canvas(qapp, look: theme.Theme) -> None:
    """The ``+3`` after a node's branch under its card was a fixed green, 2.7:1 on the
    light canvas."""
    from desktop.ui.canvas.status_badge import BRANCH_H
    from desktop.views.branches import BranchNote

    scene, badge = _badge(look, "done")
    badge.set_branch(BranchNote("canvas/1a2b3c4d/lead", 3))
    body = badge.node_bounds
    # the branch line is the last under the pill (no summary): its right quarter holds +3
    top = body.bottom() + PILL_GAP + PILL_H + 2
    image = _drawn(scene, badge, QRectF(body.right() - body.width() / 4, top,
                                        body.width() / 4, BRANCH_H))
    ground = image.pixelColor(1, 1)
    ink = max(contrast(image.pixelColor(x, y), ground)
              for y in range(image.height()) for x in range(image.width()))
    assert ink >= 4.5, (look.name, ground.name(), round(ink, 2))
