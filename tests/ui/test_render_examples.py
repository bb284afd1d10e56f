"""Every example workflow renders to PNG and SVG in both themes, with every node drawn."""

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QImage

from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.ui import theme
from desktop.ui.canvas.node_item import NODE_H, NODE_W
from desktop.ui.canvas.scene import CanvasScene
from desktop.ui.editor import Editor
from desktop.ui.export_image import content_rect, export_png, export_svg
from desktop.ui.files import fill_missing_positions

EXAMPLES = sorted(examples_dir().glob("*.flow.yaml"))
SHOTS = os.environ.get("AGENT_CANVAS_SHOTS")  # keep the pictures to look at them


@pytest.mark.parametrize("look", [theme.LIGHT, theme.DARK], ids=lambda t: t.name)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name.removesuffix(".flow.yaml"))
def test_example_renders(qapp, tmp_path: Path, example: Path, look: theme.Theme) -> None:
    doc = fill_missing_positions(load_workflow(example))
    scene = CanvasScene(Editor(doc), look)
    out = Path(SHOTS) if SHOTS else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{example.name.removesuffix('.flow.yaml')}-{look.name}"
    png = export_png(scene, out / f"{stem}.png")
    image = QImage(str(png))
    assert not image.isNull() and image.width() > 300
    rect = content_rect(scene)
    for node in doc.nodes:  # each node's body is painted over the canvas colour
        item = scene.nodes[node.id]
        inside = item.pos() + QPointF(NODE_W / 2, NODE_H - 6)
        x = round((inside.x() - rect.left()) * image.width() / rect.width())
        y = round((inside.y() - rect.top()) * image.height() / rect.height())
        assert image.pixelColor(x, y) == QColor(look.node), node.id
    svg = export_svg(scene, out / f"{stem}.svg", doc.name).read_text()
    assert svg.startswith("<?xml") and "<svg" in svg
