"""Render resources/icons/agent-canvas.svg to the PNG sizes desktops look for.

Run from the repository root after changing the SVG:
``QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py``.
Writes ``resources/icons/<N>x<N>/agent-canvas.png`` (hicolor theme layout).
"""

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def render(svg: Path, size: int, target: Path) -> None:
    """Draw ``svg`` into a transparent ``size``-square PNG at ``target``."""
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(svg)).render(painter)
    painter.end()
    target.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(target)):
        raise SystemExit(f"cannot write {target}")


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    svg = ICONS / "agent-canvas.svg"
    for size in SIZES:
        render(svg, size, ICONS / f"{size}x{size}" / "agent-canvas.png")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
