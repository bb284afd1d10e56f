"""Render resources/icons/agent-canvas.svg to the PNG sizes desktops look for.

Run from the repository root after changing the SVG:
``QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py``.
Writes ``resources/icons/<N>x<N>/agent-canvas.png`` (hicolor theme layout), and from
those ``packaging/windows/agent-canvas.ico`` and ``packaging/macos/agent-canvas.icns``
(both hold PNG images, which Windows Vista+ and macOS 10.7+ read).
"""

import struct
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
PACKAGING = Path(__file__).resolve().parent
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def png(size: int) -> bytes:
    return (ICONS / f"{size}x{size}" / "agent-canvas.png").read_bytes()


def ico() -> bytes:
    """An .ico file: a directory of PNG images (a 256 px image is written as size 0)."""
    header = struct.pack("<HHH", 0, 1, len(ICO_SIZES))
    offset = len(header) + 16 * len(ICO_SIZES)
    entries, images = b"", b""
    for size in ICO_SIZES:
        data = png(size)
        edge = size % 256
        entries += struct.pack("<BBBBHHII", edge, edge, 0, 0, 1, 32, len(data), offset)
        images += data
        offset += len(data)
    return header + entries + images


def icns() -> bytes:
    """An .icns file: PNG images under their type codes."""
    body = b"".join(kind + struct.pack(">I", 8 + len(png(size))) + png(size)
                    for size, kind in ICNS_TYPES.items())
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


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
    for target, data in ((PACKAGING / "windows" / "agent-canvas.ico", ico()),
                         (PACKAGING / "macos" / "agent-canvas.icns", icns())):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
