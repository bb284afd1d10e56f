"""Cold start of the GUI from the venv, to its first window on the screen.

``agent-canvas`` opening the single-agent example against a bare PySide6 program that
shows one QGraphicsView (the floor of any Qt window with a scene), alternating, each
from spawn until a window with the example's name in its title is mapped on a fresh
Xvfb (polled with ``xwininfo``). Target: at most 1.5x the bare window. The app's window
is shown (and painted) before the editor's modules load, and gets its document's tab
right after (desktop/ui/startup.py); a second row reports when that tab is there: the
window's title then starts with the workflow's name. Needs Xvfb and xwininfo; without
them it reports a skip.
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
DOC_NAME = "Single agent"  # the example's ``name``: the window's title starts with it
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

        def window(argv: list[str], titles: list[str]) -> list[float]:
            return xvfb.window_titles(argv, env, display, titles)

        app_titles = [SINGLE.name, f"{DOC_NAME} — {SINGLE.name}"]
        window(app, app_titles), window(bare, [SINGLE.name])  # bytecode
        ours, loaded, theirs = [], [], []
        for _ in range(runs):
            first, full = window(app, app_titles)
            ours.append(first)
            loaded.append(full)
            theirs.append(window(bare, [SINGLE.name])[0])
    value, reference = statistics.median(ours), statistics.median(theirs)
    document = statistics.median(loaded)
    return [{"name": "GUI cold start to the first window (venv) vs a bare QGraphicsView",
             "value": round(value, 3), "unit": "s", "reference": round(reference, 3),
             "ratio": round(value / reference, 2), "target": "<= 1.5x the bare window",
             "ok": value <= 1.5 * reference},
            {"name": "GUI cold start to the document shown in that window (venv)",
             "value": round(document, 3), "unit": "s", "reference": round(reference, 3),
             "ratio": round(document / reference, 2),
             "target": "reference: the bare window", "ok": None}]
