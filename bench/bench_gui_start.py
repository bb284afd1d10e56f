"""Cold start of the GUI from the venv, to its first window on the screen.

``agent-canvas`` opening the single-agent example against a bare PySide6 program that
shows one QGraphicsView (the floor of any Qt window with a scene), alternating, each
from spawn until a window with the example's name in its title is mapped on a fresh
Xvfb (polled with ``xwininfo``). Target: at most 1.5x the bare window. Needs Xvfb and
xwininfo; without them it reports a skip.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench import xvfb

ROOT = Path(__file__).resolve().parents[1]
APP = Path(sys.executable).parent / "agent-canvas"
SINGLE = ROOT / "resources" / "examples" / "single-agent.flow.yaml"
BARE = """import sys
from PySide6.QtWidgets import QApplication, QGraphicsScene, QGraphicsView
app = QApplication(sys.argv)
scene = QGraphicsScene()
view = QGraphicsView(scene)
view.setWindowTitle(sys.argv[1])
view.resize(1200, 800)
view.show()
app.exec()
"""


def _skip(why: str) -> list[dict]:
    return [{"name": why, "value": None, "unit": "", "reference": None, "ratio": None,
             "target": None, "ok": None}]


def run(quick: bool) -> list[dict]:
    if not APP.is_file():
        return _skip(f"no console script at {APP}: run `make venv`")
    if not xvfb.available():
        return _skip("no Xvfb or xwininfo: the window rows need both")
    runs = 2 if quick else 7
    with xvfb.xvfb() as display, tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
               "LANG": "C.UTF-8", "AGENT_CANVAS_DATA_DIR": str(home / "data"),
               "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
        app = [str(APP), str(SINGLE)]
        bare = [sys.executable, "-c", BARE, SINGLE.name]

        def window(argv: list[str]) -> float:
            return xvfb.first_window(argv, env, display, SINGLE.name)

        window(app), window(bare)  # bytecode
        ours, theirs = [], []
        for _ in range(runs):
            ours.append(window(app))
            theirs.append(window(bare))
    value, reference = statistics.median(ours), statistics.median(theirs)
    return [{"name": "GUI cold start to the first window (venv) vs a bare QGraphicsView",
             "value": round(value, 3), "unit": "s", "reference": round(reference, 3),
             "ratio": round(value / reference, 2), "target": "<= 1.5x the bare window",
             "ok": value <= 1.5 * reference}]
