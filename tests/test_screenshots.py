"""`make screenshots` draws every picture the README shows, and only those, from a real
window and service."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(set(re.findall(r"docs/screenshots/([\w-]+)\.png",
                              (ROOT / "README.md").read_text(encoding="utf-8"))))


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_every_picture_the_readme_shows_is_drawn(tmp_path: Path, qapp) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "screenshots.py"), str(tmp_path), "--offscreen"],
        env=env, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(NAMES) >= 11  # the README's pictures were found
    for name in NAMES:
        image = QImage(str(tmp_path / f"{name}.png"))
        assert (image.width(), image.height()) == (1600, 1000), name
        colours = {image.pixel(x, y) for x in range(0, 1600, 40) for y in range(0, 1000, 40)}
        assert len(colours) > 20, name  # a drawn window, not a blank one
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{n}.png" for n in NAMES)
