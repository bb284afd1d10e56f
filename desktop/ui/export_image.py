"""Export the canvas as a PNG or SVG picture of every node and edge."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator

from desktop.ui.canvas.scene import CanvasScene

MARGIN = 40.0
MAX_SIDE = 16000


class _FullDetail:
    """Draw every item (not the far-zoom overview) while exporting."""

    def __init__(self, scene: CanvasScene):
        self.scene, self.was = scene, scene.overview_on

    def __enter__(self) -> None:
        self.scene.set_overview(False)

    def __exit__(self, *exc: object) -> None:
        self.scene.set_overview(self.was)


def content_rect(scene: CanvasScene) -> QRectF:
    """The area covered by nodes and edges, with a margin."""
    scene.route_all()  # a route can reach further out than its edge claims until routed
    with _FullDetail(scene):
        return _content_rect(scene)


def _content_rect(scene: CanvasScene) -> QRectF:
    rect = QRectF()
    for item in list(scene.nodes.values()) + list(scene.edges.values()):
        if not getattr(item, "dangling", False):
            rect = rect.united(item.sceneBoundingRect())
    if rect.isEmpty():
        rect = QRectF(0, 0, 400, 300)
    return rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)


def render_image(scene: CanvasScene, scale: float = 2.0) -> QImage:
    """The canvas content as an image (``scale`` pixels per scene unit, capped)."""
    rect = content_rect(scene)
    scale = min(scale, MAX_SIDE / max(rect.width(), rect.height()))
    size = QSize(max(1, round(rect.width() * scale)), max(1, round(rect.height() * scale)))
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(scene.theme.canvas))
    selected = scene.selectedItems()
    scene.clearSelection()  # a picture shows the graph, not what happened to be selected
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing
                           | QPainter.RenderHint.TextAntialiasing)
    with _FullDetail(scene):
        scene.render(painter, QRectF(image.rect()), rect)
    painter.end()
    for item in selected:
        item.setSelected(True)
    return image


def export_png(scene: CanvasScene, path: str | Path, scale: float = 2.0) -> Path:
    target = Path(path)
    if not render_image(scene, scale).save(str(target), "PNG"):
        raise OSError(f"could not write {target}")
    return target


def export_svg(scene: CanvasScene, path: str | Path, title: str = "") -> Path:
    target = Path(path)
    rect = content_rect(scene)
    gen = QSvgGenerator()
    gen.setFileName(str(target))
    gen.setSize(QSize(round(rect.width()), round(rect.height())))
    gen.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
    gen.setTitle(title or "Agent Canvas workflow")
    selected = scene.selectedItems()
    scene.clearSelection()
    painter = QPainter(gen)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    with _FullDetail(scene):
        scene.render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
    painter.end()
    for item in selected:
        item.setSelected(True)
    if not target.is_file():
        raise OSError(f"could not write {target}")
    return target
