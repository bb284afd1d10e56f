"""The GUI under a stream: 20 scripted agents x 500 events/s into the open window.

The agents are real processes run by the local service (``agent-canvas serve``, a
process of its own, as in the app; the ``command`` provider and the paced agent
program of bench_runtime), each printing ``message.assistant.delta`` lines stamped
with ``time.monotonic()``. The window attaches to the run over the API and
receives its events over the WebSocket. A 10 ms QTimer in the window's process
measures its own lateness: that is the event-loop lag the user feels. The same
stream is run once with nothing attached (the bench reads the log) for reference.
Also measured: opening a large log in the transcript (rows on screen, first
paint) and searching all of it.
"""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from bench.measure import rss_mb, serve

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

AGENTS = 20
RATE = 500  # events per second per agent
NEEDLE = "needle"  # in one event of every SEARCH_EVERY of the big log
SEARCH_EVERY = 1000


def _p99(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def _stream(app, with_gui: bool, seconds: float) -> dict:
    """One paced stream of real agent processes run by the local service (its own
    process), the window attached to the run over the API, or nothing attached."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-gui-"))
    proc, info = serve(tmp / "data", AGENTS + 1)
    try:
        return _measure(app, with_gui, seconds, tmp, info)
    finally:
        proc.terminate()  # SIGTERM: the service ends its agents and exits
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def _measure(app, with_gui: bool, seconds: float, tmp: Path, info) -> dict:
    """The stream of :func:`_stream` against the service ``info`` describes."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMainWindow, QVBoxLayout, QWidget

    from bench.bench_runtime import _workflow
    from desktop.graph.io import document_data
    from desktop.ui.run.attach import attach_run_panels
    from desktop.ui.run.session import RunSession
    from desktop.views.reader import LogTail

    go = tmp / "go"
    data = tmp / "data"
    deltas = int(RATE * seconds)
    loop = asyncio.get_event_loop()
    client = info.client()
    doc = _workflow(AGENTS, deltas, go, float(RATE))
    state = loop.run_until_complete(client.create_run(workflow=document_data(doc)))
    run_dir = data / "runs" / state["id"]
    tail = LogTail(run_dir)
    progress = {"started": 0, "last_delta": 0.0, "status": "", "written": 0}

    def note(events: list[dict]) -> None:
        """What the stream did, from the events as they arrive here."""
        now = time.perf_counter()
        for e in events:
            if e.get("busType") == "RUN_START":
                progress["started"] += 1
            elif "t" in e:
                progress["last_delta"] = now
            elif e.get("type") in ("run.completed", "run.failed", "run.stopped"):
                progress["status"] = e["type"].split(".")[1]
            progress["written"] = e["seq"]

    window = panels = session = None
    gc.collect()
    rss0 = rss_mb()
    seen: set[int] = set()  # seqs the transcript model was fed
    shown_after: list[float] = []  # agent stamp to the GUI's batch, per delta
    poller = QTimer()
    if with_gui:
        window = QMainWindow()
        central = QWidget()
        QVBoxLayout(central)
        window.setCentralWidget(central)
        panels = attach_run_panels(window, data)
        window.resize(1400, 900)
        window.show()
        session = RunSession(run_dir, panels, service=info, data_dir=data)
        seen.update(range(1, session.model.store.count + 1))  # on screen at open
        note(tail.read_new())  # what the session read from the log at open

        def fed(events: list[dict]) -> None:
            now = time.monotonic()
            note(events)
            for e in events:
                seen.add(e["seq"])
                if "t" in e:
                    shown_after.append(now - e["t"])

        session.bridge.events.connect(fed)
        panels.show_session(session)
    else:  # nothing attached: the bench reads the log itself, every 10 ms
        poller.setInterval(10)
        poller.timeout.connect(lambda: note(tail.read_new()))
        poller.start()
    lags: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        lags.append(max(0.0, now - last[0] - 0.010))
        last[0] = now

    timer.timeout.connect(tick)
    t0 = [0.0]

    async def go_run() -> str:
        ready_by = loop.time() + 120
        while progress["started"] < AGENTS and not progress["status"]:
            if loop.time() > ready_by:
                raise RuntimeError(f"only {progress['started']} of {AGENTS} agents started")
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # every agent is polling for the start line
        last[0] = t0[0] = time.perf_counter()
        timer.start()
        go.touch()
        end = loop.time() + 120 + seconds * 3
        while not progress["status"] and loop.time() < end:
            await asyncio.sleep(0.02)
        timer.stop()
        await asyncio.sleep(0.1)  # the last frame
        return str(progress["status"] or "timed out")

    status = loop.run_until_complete(go_run())
    poller.stop()
    elapsed = progress["last_delta"] - t0[0]  # go to the last delta seen here
    written = int(progress["written"])
    if status != "completed":
        raise RuntimeError(f"bench run ended {status}")
    missing = None
    if session is not None:
        session.bridge.drain()
        missing = written - len(seen & set(range(1, written + 1)))
    gc.collect()
    rss1 = rss_mb()
    if session is not None:
        loop.run_until_complete(session.close())
        window.close()
        window.deleteLater()
    loop.run_until_complete(client.close())
    app.processEvents()
    return {"lag_p99_ms": _p99(lags) * 1000, "events": written, "missing": missing,
            "rss_mb": rss1 - rss0, "rate": AGENTS * deltas / elapsed,
            "shown_p99_ms": _p99(shown_after) * 1000, "lags": lags}


def _write_log(path: Path, count: int) -> None:
    import orjson

    run_id = str(uuid.uuid4())
    nodes = [str(uuid.uuid4()) for _ in range(AGENTS)]
    with open(path, "wb") as fh:
        chunk = []
        for seq in range(1, count + 1):
            text = "token " * 8 if seq % SEARCH_EVERY else "token " * 4 + f"a {NEEDLE} here"
            chunk.append(orjson.dumps({
                "type": "message.assistant.delta", "runId": run_id, "nodeId": nodes[seq % 20],
                "id": str(seq), "ts": "2026-01-01T00:00:00.000Z", "text": text, "seq": seq}))
            if len(chunk) == 50000:
                fh.write(b"\n".join(chunk) + b"\n")
                chunk = []
        if chunk:
            fh.write(b"\n".join(chunk) + b"\n")


def _big_log(app, count: int) -> dict:
    """Open a ``count``-event log and paint its first screen; then search all of it for a
    word in one event of every SEARCH_EVERY (first match on screen, all found), with the
    longest single slice (how long the window is busy at a time). References: reading the
    last line plainly, and one plain pass over the file's bytes for the word."""
    import orjson

    from desktop.ui.run.transcript_model import TranscriptModel
    from desktop.ui.run.transcript_view import TranscriptView

    tmp = Path(tempfile.mkdtemp(prefix="bench-open-"))
    path = tmp / "events.jsonl"
    _write_log(path, count)
    out: dict = {}
    t0 = time.perf_counter()
    with open(path, "rb") as fh:
        fh.seek(-4096, 2)
        orjson.loads(fh.read().splitlines()[-1])
    out["open_ref"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    model = TranscriptModel.open_file(path)
    view = TranscriptView(model)
    view.resize(900, 700)
    view.show()
    view.list.scrollToBottom()
    view.repaint()
    out["open_s"] = time.perf_counter() - t0
    assert model.rowCount() == count
    while model.indexing:  # filters (and search rows) wait for the index
        app.processEvents()
    view.raw_action.setChecked(True)  # deltas are hidden by default; the log is all deltas
    slices: list[float] = []
    original = model._search_slice

    def timed_slice() -> None:
        s0 = time.perf_counter()
        original()
        slices.append(time.perf_counter() - s0)

    model._search_timer.timeout.disconnect()
    model._search_timer.timeout.connect(timed_slice)
    t0 = time.perf_counter()
    view.set_search(NEEDLE)  # Enter in the search box: the first slice runs at once
    view.list.repaint()
    out["first_s"] = time.perf_counter() - t0 if model.rowCount() else None
    slices.append(out["first_s"] or 0.0)
    while model.searching:
        app.processEvents()
    out["done_s"] = time.perf_counter() - t0
    out["hits"] = model.rowCount()
    out["slice_max_ms"] = max(slices) * 1000
    assert out["hits"] == count // SEARCH_EVERY, out["hits"]
    t0 = time.perf_counter()
    with open(path, "rb") as fh:
        found = fh.read().lower().count(NEEDLE.encode())
    out["search_ref"] = time.perf_counter() - t0
    assert found == out["hits"]
    view.hide()
    view.deleteLater()
    app.processEvents()
    model.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def run(quick: bool) -> list[dict]:
    """Lag, completeness and memory of the GUI attached over the API under 10,000
    events/s from real agent processes in the service; opening and searching a 1M-event
    log."""
    from PySide6.QtWidgets import QApplication

    from desktop.ui.loop import new_event_loop

    app = QApplication.instance() or QApplication([])
    loop = new_event_loop(app)
    asyncio.set_event_loop(loop)
    seconds = 2.0 if quick else 10.0
    bare = _stream(app, False, seconds)
    gui = _stream(app, True, seconds)
    count = 100_000 if quick else 1_000_000
    big = _big_log(app, count)
    loop.close()
    asyncio.set_event_loop(None)
    name = f"{AGENTS} scripted agents x {RATE} ev/s for {seconds:.0f}s"
    target = AGENTS * RATE * 0.9
    return [
        {"name": f"event-loop lag p99, GUI open ({name})", "value": round(gui["lag_p99_ms"], 2),
         "unit": "ms", "reference": round(bare["lag_p99_ms"], 2),
         "ratio": round(gui["lag_p99_ms"] / max(bare["lag_p99_ms"], 0.01), 2),
         "target": "< 50 ms", "ok": gui["lag_p99_ms"] < 50},
        {"name": "events missing from the transcript model", "value": gui["missing"],
         "unit": "events", "reference": gui["events"], "ratio": None, "target": "= 0",
         "ok": gui["missing"] == 0},
        {"name": "agent output to the transcript model over the API, p99 (agent stamp to "
                 "GUI batch)",
         "value": round(gui["shown_p99_ms"], 1), "unit": "ms", "reference": None,
         "ratio": None, "target": None, "ok": None},
        {"name": "agent events per second through the service, GUI attached over the API",
         "value": round(gui["rate"]), "unit": "events/s", "reference": round(bare["rate"]),
         "ratio": round(gui["rate"] / max(bare["rate"], 1), 2),
         "target": f">= {target:.0f}", "ok": gui["rate"] >= target},
        {"name": "memory growth of the GUI process during the stream",
         "value": round(gui["rss_mb"], 1), "unit": "MB", "reference": round(bare["rss_mb"], 1),
         "ratio": None, "target": None, "ok": None},
        {"name": f"open a {count:,}-event log in the transcript (first screen)",
         "value": round(big["open_s"], 3), "unit": "s", "reference": round(big["open_ref"], 4),
         "ratio": round(big["open_s"] / max(big["open_ref"], 1e-6), 1), "target": "< 1 s",
         "ok": big["open_s"] < 1.0},
        {"name": f"search a {count:,}-event log: first match on screen",
         "value": round(big["first_s"], 4) if big["first_s"] is not None else None,
         "unit": "s", "reference": None, "ratio": None, "target": "< 0.1 s",
         "ok": big["first_s"] is not None and big["first_s"] < 0.1},
        {"name": f"search a {count:,}-event log: all {big['hits']:,} matches found",
         "value": round(big["done_s"], 3), "unit": "s", "reference": round(big["search_ref"], 3),
         "ratio": round(big["done_s"] / max(big["search_ref"], 1e-6), 2), "target": "< 1 s",
         "ok": big["done_s"] < 1.0},
        {"name": "search: longest time the window is busy at once (one slice)",
         "value": round(big["slice_max_ms"], 1), "unit": "ms", "reference": None,
         "ratio": None, "target": "< 50 ms", "ok": big["slice_max_ms"] < 50},
    ]


if __name__ == "__main__":
    for row in run(quick=bool(os.environ.get("QUICK"))):
        print(row)
