"""A node the run added (drawn over the canvas, dashed) takes its colours from the
canvas's theme: its card is the theme's run-time fill, and its name, its "added at run
time" line and its dashed outline read on what they are drawn on, in both themes."""

from __future__ import annotations

import pytest
from contrast import contrast
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene

from desktop.ui.run.canvas_overlay import RUNTIME_H, RUNTIME_W, LineItem, RuntimeNodeItem
from desktop.ui.theme import DARK, LIGHT, Theme

THEMES = [LIGHT, DARK]


class _Canvas(QGraphicsScene):
    """A scene with a theme, as the editor's canvas has."""

    def __init__(self, theme: Theme) -> None:
        super().__init__()
        self.theme = theme


def _painted(item: RuntimeNodeItem, canvas: str) -> QImage:
    image = QImage(int(RUNTIME_W), int(RUNTIME_H), QImage.Format.Format_RGB32)
    image.fill(QColor(canvas))
    painter = QPainter(image)
    item.paint(painter, None)
    painter.end()
    return image


@pytest.mark.parametrize("theme", THEMES, ids=lambda t: t.name)
def test_the_card_reads_in_the_theme(qapp, theme: Theme) -> None:
    scene = _Canvas(theme)
    item = RuntimeNodeItem("n1", "Helper")
    scene.addItem(item)
    # a spot of the card under its two lines of text: the card's own fill
    fill = _painted(item, theme.canvas).pixelColor(int(RUNTIME_W) - 12, int(RUNTIME_H) - 10)
    assert contrast(fill, QColor(theme.text)) >= 4.5  # the node's name
    assert contrast(fill, QColor(theme.runtime)) >= 4.5  # "added at run time"
    assert contrast(QColor(theme.runtime), QColor(theme.canvas)) >= 3  # the dashed lines
    assert fill == QColor(theme.runtime_fill)
    scene.removeItem(item)


def test_a_change_of_theme_reaches_the_card(qapp) -> None:
    scene = _Canvas(LIGHT)
    item = RuntimeNodeItem("n1", "Helper")
    scene.addItem(item)
    scene.theme = DARK
    fill = _painted(item, DARK.canvas).pixelColor(int(RUNTIME_W) - 12, int(RUNTIME_H) - 10)
    assert fill == QColor(DARK.runtime_fill)
    scene.removeItem(item)


@pytest.mark.parametrize("theme", THEMES, ids=lambda t: t.name)
def test_an_added_edge_is_drawn_in_the_theme(qapp, theme: Theme) -> None:
    from PySide6.QtCore import QPointF

    scene = _Canvas(theme)
    line = LineItem(QPointF(0, 10), QPointF(40, 10))
    scene.addItem(line)
    image = QImage(48, 20, QImage.Format.Format_RGB32)
    image.fill(QColor(theme.canvas))
    painter = QPainter(image)
    line.paint(painter, None)
    painter.end()
    # the first dash, at its middle: the line's own colour
    assert contrast(image.pixelColor(2, 10), QColor(theme.runtime)) < 1.2
    scene.removeItem(line)
