"""A run that needs the user: from the event appended to its log to the notification.

A finished run of the single-agent example (made once by ``agent-canvas run``) is opened
in a window's run panels, following its log as the app follows a run another process
writes (the log polled every 100 ms, batches delivered every 16 ms). No window is
active, so every request nudges. The bench appends one ``approval.requested`` at a time
to the log and times until the notifier calls the tray (a recording one: the call is what
is measured, not the desktop's drawing of it). References in the same run: a bare
``QTimer.singleShot(0)`` round trip of the same event loop, and the append itself.
Target: under 1 s.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
SINGLE = ROOT / "resources" / "examples" / "single-agent.flow.yaml"
TARGET_S = 1.0


def _finished_run(data: Path) -> Path:
    subprocess.run([sys.executable, "-m", "desktop", "run", str(SINGLE), "--data-dir",
                    str(data)], capture_output=True, timeout=300, stdin=subprocess.DEVNULL,
                   check=True)
    return next((data / "runs").iterdir())


def _round_trip(app) -> float:
    """One ``QTimer.singleShot(0)`` through the event loop, in seconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    start = time.perf_counter()
    QTimer.singleShot(0, loop.quit)
    loop.exec()
    return time.perf_counter() - start


def _append(log: Path, event: dict) -> float:
    """Append one event as the run's writer does (a line, flushed); its time."""
    start = time.perf_counter()
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(event) + "\n")
        fh.flush()
    return time.perf_counter() - start


def _measure(run_dir: Path, count: int) -> tuple[list[float], list[float], list[float]]:
    from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal
    from PySide6.QtWidgets import QApplication, QMainWindow, QVBoxLayout, QWidget

    from desktop.ui.run.attach import attach_run_panels
    from desktop.ui.run.notifier import Notifier, set_app_notifier
    from desktop.ui.run.session import RunSession

    app = QApplication.instance() or QApplication([])

    class Tray(QObject):
        clicked = Signal()

        def __init__(self) -> None:
            super().__init__()
            self.at: list[float] = []
            self.loop: QEventLoop | None = None

        def show(self, _nudge, _window) -> None:
            self.at.append(time.perf_counter())
            if self.loop is not None:
                self.loop.quit()

    tray = Tray()
    notifier = Notifier(tray)
    notifier.set_enabled({"approvals", "pauses", "ends"})
    set_app_notifier(notifier)
    window = QMainWindow()
    QVBoxLayout(central := QWidget())
    window.setCentralWidget(central)
    panels = attach_run_panels(window, run_dir.parent.parent)
    session = RunSession(run_dir, panels, follow=True)
    panels.show_session(session)
    log = run_dir / "events.jsonl"
    seq = session.bridge_last_seq()
    node = next(iter(session.state["nodes"]))
    latencies, appends, trips = [], [], []
    try:
        for i in range(count):
            trips.append(_round_trip(app))
            tray.loop = QEventLoop()
            timeout = QTimer()
            timeout.setSingleShot(True)
            timeout.timeout.connect(tray.loop.quit)
            timeout.start(10_000)
            event = {"type": "approval.requested", "id": str(uuid.uuid4()),
                     "ts": "2026-01-01T00:00:00.000Z", "runId": session.run_id,
                     "seq": seq + i + 1, "approvalId": f"bench-{i}", "nodeId": node,
                     "kind": "tool", "tool": {"name": "Bash", "args": {"command": "true"}}}
            shown = len(tray.at)
            start = time.perf_counter()
            appends.append(_append(log, event))
            tray.loop.exec()
            timeout.stop()
            if len(tray.at) == shown:
                raise RuntimeError("no notification within 10 s")
            latencies.append(tray.at[-1] - start)
    finally:
        session.bridge.detach()
        session.model.close()
        set_app_notifier(None)
        panels.release()
        window.deleteLater()
        notifier.deleteLater()
    return latencies, appends, trips


def run(quick: bool) -> list[dict]:
    """Rows: event appended -> notification call (median and worst), against the loop's
    own round trip and the append."""
    count = 10 if quick else 30
    folder = Path(tempfile.mkdtemp(prefix="bench-nudges-"))
    try:
        latencies, appends, trips = _measure(_finished_run(folder / "data"), count)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    median, worst = statistics.median(latencies), max(latencies)
    trip, append = statistics.median(trips), statistics.median(appends)
    label = f"event appended to the log -> desktop notification call ({count} requests)"
    return [
        {"name": f"{label}: median (reference: QTimer.singleShot(0) round trip)",
         "value": round(median, 4), "unit": "s", "reference": round(trip, 6),
         "ratio": round(median / trip), "target": f"< {TARGET_S:g} s",
         "ok": median < TARGET_S},
        {"name": f"{label}: worst (reference: the append itself)",
         "value": round(worst, 4), "unit": "s", "reference": round(append, 6),
         "ratio": round(worst / append), "target": f"< {TARGET_S:g} s",
         "ok": worst < TARGET_S},
    ]
