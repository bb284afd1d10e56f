"""Cold start of the GUI from the venv, to its first window on the screen.

``agent-canvas`` opening the single-agent example against a bare PySide6 program that
shows one QGraphicsView (the floor of any Qt window with a scene), alternating, each
from spawn until a window with the example's name in its title is mapped on a fresh
Xvfb (polled with ``xwininfo``). Target: at most 1.5x the bare window. Needs Xvfb and
xwininfo; without them it reports a skip.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

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


def _xvfb() -> tuple[subprocess.Popen, str]:
    read_end, write_end = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0",
                               "1600x1000x24", "-nolisten", "tcp"], pass_fds=(write_end,),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        return server, ":" + pipe.readline().strip()


def _first_window(argv: Sequence[str], env: dict[str, str], display: str) -> float:
    """Seconds from spawn until a window titled with the example's name is mapped."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env={**env, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        while time.perf_counter() - start < 120:
            tree = subprocess.run(["xwininfo", "-root", "-tree"],
                                  env={"DISPLAY": display, "LANG": "C.UTF-8"},
                                  capture_output=True, text=True, timeout=20).stdout
            if SINGLE.name in tree:
                return time.perf_counter() - start
            time.sleep(0.01)
        raise RuntimeError("no window within 120 s")
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(30)


def run(quick: bool) -> list[dict]:
    if not APP.is_file():
        return _skip(f"no console script at {APP}: run `make venv`")
    if not (shutil.which("Xvfb") and shutil.which("xwininfo")):
        return _skip("no Xvfb or xwininfo: the window rows need both")
    runs = 2 if quick else 7
    server, display = _xvfb()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            home = Path(scratch)
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                   "LANG": "C.UTF-8", "AGENT_CANVAS_DATA_DIR": str(home / "data"),
                   "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
            app = [str(APP), str(SINGLE)]
            bare = [sys.executable, "-c", BARE, SINGLE.name]
            _first_window(app, env, display), _first_window(bare, env, display)  # bytecode
            ours, theirs = [], []
            for _ in range(runs):
                ours.append(_first_window(app, env, display))
                theirs.append(_first_window(bare, env, display))
    finally:
        server.terminate()
        server.wait(10)
    value, reference = statistics.median(ours), statistics.median(theirs)
    return [{"name": "GUI cold start to the first window (venv) vs a bare QGraphicsView",
             "value": round(value, 3), "unit": "s", "reference": round(reference, 3),
             "ratio": round(value / reference, 2), "target": "<= 1.5x the bare window",
             "ok": value <= 1.5 * reference}]
