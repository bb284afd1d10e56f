"""The GUI under a stream: 20 agents x 500 events/s into the open window, against no GUI.

Agents are in-process producers appending ``message.assistant.delta`` events to one
event log (what providers turn agent output into), flushed in small batches like the
engine's recorder. A 10 ms QTimer measures its own lateness: that is the event-loop
lag the user feels. The same stream is run once with no GUI attached for reference.
Also measured: opening a large log in the transcript (rows on screen, first paint).
"""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

AGENTS = 20
RATE = 500  # events per second per agent
TICK = 0.02  # producers wake 50 times a second


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


def _p99(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def _producer(log, run_id: str, node: str, seconds: float) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    n = 0
    while (elapsed := loop.time() - start) < seconds:
        # paced by the clock: a late wake-up sends the events it owes in one batch
        for _ in range(int(RATE * elapsed) - n):
            n += 1
            log.append({"type": "message.assistant.delta", "runId": run_id, "nodeId": node,
                        "text": f"token {n} ", "messageId": f"{node}-m{n // 200}"})
        log.flush()
        await asyncio.sleep(TICK)


def _stream(app, with_gui: bool, seconds: float) -> dict:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMainWindow, QVBoxLayout, QWidget

    from desktop.store.eventlog import Durability, EventLog
    from desktop.ui.run.attach import attach_run_panels
    from desktop.ui.run.session import RunSession

    tmp = Path(tempfile.mkdtemp(prefix="bench-gui-"))
    run_id = str(uuid.uuid4())
    run_dir = tmp / "runs" / run_id
    log = EventLog.open(run_dir, durability=Durability.NONE)
    nodes = {str(uuid.uuid4()): f"agent {i}" for i in range(AGENTS)}
    log.append({"type": "run.created", "runId": run_id, "workflowName": "bench",
                "nodes": {nid: {"id": nid, "runId": run_id, "label": label}
                          for nid, label in nodes.items()}})
    log.append({"type": "run.started", "runId": run_id})
    log.flush()
    window = panels = session = None
    gc.collect()
    rss0 = _rss_mb()
    if with_gui:
        window = QMainWindow()
        central = QWidget()
        QVBoxLayout(central)
        window.setCentralWidget(central)
        panels = attach_run_panels(window, tmp)
        window.resize(1400, 900)
        window.show()
        session = RunSession(run_dir, None, panels)
        session.bridge.attach_log(log)
        panels.show_session(session)
    lags: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        lags.append(max(0.0, now - last[0] - 0.010))
        last[0] = now

    timer.timeout.connect(tick)
    loop = asyncio.get_event_loop()

    async def go() -> None:
        last[0] = time.perf_counter()
        timer.start()
        await asyncio.gather(*(_producer(log, run_id, nid, seconds) for nid in nodes))
        timer.stop()
        await asyncio.sleep(0.1)  # the last frame

    t0 = time.perf_counter()
    loop.run_until_complete(go())
    elapsed = time.perf_counter() - t0
    written = log.last_seq
    missing = None
    if session is not None:
        session.bridge.drain()
        session.model.store.index_step(1 << 30)
        missing = written - session.model.store.indexed
        delivered_ok = session.bridge.delivered
    else:
        delivered_ok = None
    gc.collect()
    rss1 = _rss_mb()
    log.close()
    if window is not None:
        loop.run_until_complete(session.close())
        window.close()
        window.deleteLater()
    app.processEvents()
    shutil.rmtree(tmp, ignore_errors=True)
    return {"lag_p99_ms": _p99(lags) * 1000, "events": written, "missing": missing,
            "delivered": delivered_ok, "rss_mb": rss1 - rss0, "rate": written / elapsed}


def _open_big(app, count: int) -> tuple[float, float]:
    """Seconds to open a ``count``-event log and paint its first screen; and to read its
    last line plainly (the reference)."""
    import orjson

    from desktop.ui.run.transcript_model import TranscriptModel
    from desktop.ui.run.transcript_view import TranscriptView

    tmp = Path(tempfile.mkdtemp(prefix="bench-open-"))
    path = tmp / "events.jsonl"
    run_id = str(uuid.uuid4())
    nodes = [str(uuid.uuid4()) for _ in range(AGENTS)]
    with open(path, "wb") as fh:
        chunk = []
        for seq in range(1, count + 1):
            chunk.append(orjson.dumps({
                "type": "message.assistant.delta", "runId": run_id, "nodeId": nodes[seq % 20],
                "id": str(seq), "ts": "2026-01-01T00:00:00.000Z", "text": "token " * 8,
                "seq": seq}))
            if len(chunk) == 50000:
                fh.write(b"\n".join(chunk) + b"\n")
                chunk = []
        if chunk:
            fh.write(b"\n".join(chunk) + b"\n")
    t0 = time.perf_counter()
    with open(path, "rb") as fh:
        fh.seek(-4096, 2)
        orjson.loads(fh.read().splitlines()[-1])
    reference = time.perf_counter() - t0
    t0 = time.perf_counter()
    model = TranscriptModel.open_file(path)
    view = TranscriptView(model)
    view.resize(900, 700)
    view.show()
    view.list.scrollToBottom()
    view.repaint()
    seconds = time.perf_counter() - t0
    assert model.rowCount() == count
    view.hide()
    view.deleteLater()
    app.processEvents()
    model.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return seconds, reference


def run(quick: bool) -> list[dict]:
    """Lag, completeness and memory of the GUI under 10,000 events/s; opening 1M events."""
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    seconds = 2.0 if quick else 10.0
    bare = _stream(app, False, seconds)
    gui = _stream(app, True, seconds)
    big = 100_000 if quick else 1_000_000
    open_s, open_ref = _open_big(app, big)
    loop.close()
    asyncio.set_event_loop(None)
    name = f"{AGENTS} agents x {RATE} ev/s for {seconds:.0f}s"
    return [
        {"name": f"event-loop lag p99, GUI open ({name})", "value": round(gui["lag_p99_ms"], 2),
         "unit": "ms", "reference": round(bare["lag_p99_ms"], 2),
         "ratio": round(gui["lag_p99_ms"] / max(bare["lag_p99_ms"], 0.01), 2),
         "target": "< 50 ms", "ok": gui["lag_p99_ms"] < 50},
        {"name": "events missing from the transcript model", "value": gui["missing"],
         "unit": "events", "reference": gui["events"], "ratio": None, "target": "= 0",
         "ok": gui["missing"] == 0},
        {"name": "events written per second, GUI open", "value": round(gui["rate"]),
         "unit": "events/s", "reference": round(bare["rate"]),
         "ratio": round(gui["rate"] / max(bare["rate"], 1), 2),
         "target": f">= {AGENTS * RATE * 0.9:.0f}", "ok": gui["rate"] >= AGENTS * RATE * 0.9},
        {"name": "memory growth during the stream, GUI open", "value": round(gui["rss_mb"], 1),
         "unit": "MB", "reference": round(bare["rss_mb"], 1), "ratio": None, "target": None,
         "ok": None},
        {"name": f"open a {big:,}-event log in the transcript (first screen)",
         "value": round(open_s, 3), "unit": "s", "reference": round(open_ref, 4),
         "ratio": round(open_s / max(open_ref, 1e-6), 1), "target": "< 1 s",
         "ok": open_s < 1.0},
    ]


if __name__ == "__main__":
    for row in run(quick=bool(os.environ.get("QUICK"))):
        print(row)
