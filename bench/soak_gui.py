"""Soak: the app's window attached to the local service while 20 scripted agents stream.

As a user runs it: ``agent-canvas serve`` in its own process, the editor window on a
workflow file, Run pressed; the window's loop is the app's (qasync with the socket
wake), and Python's collector runs only on the GUI thread, as in the app. Every 20
scripted agents print 50 deltas a second each, with thoughts and messages between, for
``--seconds`` (600 by default).

Checked at the end: the run completed, the window is alive and shown, the service is
alive, and the transcript holds every event of the log once, in order (0 missing).
Reported every 30 s and at the end: events, events/s, the window's event-loop lag
(p99 of a 50 ms timer's lateness), the GUI process's RSS. Writes bench/SOAK.md.

    python -m bench.soak_gui [--seconds 600] [--agents 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import yaml

from bench.measure import rss_mb, serve

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
TICK_S = 0.05
SPIKE_S = 0.25  # a pause the user notices


def agent_script(seconds: float) -> list[dict]:
    """About ``seconds`` of steady output: 50 deltas a second in 10-second messages, a
    thought and a message with a code block between them (small enough to send)."""
    steps: list[dict] = []
    for i in range(max(1, int(seconds / 10))):
        steps.append({"deltas": {"count": 500, "perSecond": 50}})
        steps.append({"think": f"checking part {i + 1}"})
        steps.append({"say": f"part {i + 1}: all good\n\n```python\nprint({i})\n```"})
    steps.append({"done": True})
    return steps


def workflow(agents: int, seconds: float) -> dict:
    """One entry node that hands off to ``agents`` scripted streamers."""
    nodes = [{"id": "lead", "label": "Lead", "provider": "scripted", "entry": True}]
    handoffs = [{"handoff": {"to": f"streamer{i + 1}", "message": "stream"}}
                for i in range(agents)]
    configs: dict = {"lead": {"script": [{"say": "go"}, *handoffs, {"done": True}]}}
    edges = []
    for i in range(agents):
        key = f"streamer{i + 1}"
        nodes.append({"id": key, "label": f"Streamer {i + 1}", "provider": "scripted"})
        # a script of its own each: a shared one would be written as YAML aliases, which
        # the safe loader refuses past 10,000 nodes (an alias bomb guard)
        configs[key] = {"script": agent_script(seconds)}
        edges.append({"from": "lead", "to": key})
    return {"version": 1, "name": "Soak", "task": "stream for a while", "nodes": nodes,
            "nodeConfigs": configs, "edges": edges}


def p99(values: list[float]) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def soak(seconds: float, agents: int, folder: Path) -> dict:
    """Run the soak in ``folder``; the figures and checks."""
    from PySide6.QtCore import QTimer
    from shiboken6 import isValid

    from desktop.ui.app import application, collect_on_gui_thread
    from desktop.ui.loop import new_event_loop
    from desktop.ui.window import EditorWindow
    from desktop.views.reader import EventReader

    data = folder / "data"
    proc, _info = serve(data, agents + 2)
    path = folder / "soak.flow.yaml"
    path.write_text(yaml.safe_dump(workflow(agents, seconds), sort_keys=False))
    app = application()
    collector = collect_on_gui_thread(app)
    loop = new_event_loop(app)
    asyncio.set_event_loop(loop)
    lags: list[float] = []
    window_lags: list[float] = []
    seen: list[int] = []
    log: list[str] = []
    ticker = QTimer()
    ticker.setInterval(int(TICK_S * 1000))
    last = [time.perf_counter()]

    spikes: list[tuple[float, float]] = []  # (seconds into the soak, lag) above SPIKE_S

    def tick() -> None:
        now = time.perf_counter()
        lag = max(0.0, now - last[0] - TICK_S)
        lags.append(lag)
        window_lags.append(lag)
        if lag > SPIKE_S:
            spikes.append((time.monotonic() - t0, lag))
        last[0] = now

    ticker.timeout.connect(tick)
    window = EditorWindow(str(path))
    window.resize(1600, 1000)
    window.show()
    panels = window.run_panels
    panels.data_dir = data
    rss0 = rss_mb()
    t0 = time.monotonic()

    def say(text: str) -> None:
        line = f"[{time.monotonic() - t0:6.0f} s] {text}"
        print(line, flush=True)
        log.append(line)

    async def run() -> str:
        await panels.run()
        session = panels.session
        if session is None:
            raise RuntimeError("the window did not start the run (see its failure banner)")
        session.bridge.events.connect(lambda batch: seen.extend(e["seq"] for e in batch))
        last[0] = time.perf_counter()
        ticker.start()
        end = loop.time() + seconds * 2 + 300
        next_report = loop.time() + 30
        status = ""
        while loop.time() < end:
            status = (session.state or {}).get("status", "")
            if status in ("completed", "failed", "stopped"):
                break
            if loop.time() >= next_report:
                next_report += 30
                say(f"{session.model.store.count:>9,} events in the transcript, lag p99 "
                    f"{p99(window_lags) * 1000:6.1f} ms, RSS {rss_mb():6.0f} MB")
                window_lags.clear()
            await asyncio.sleep(0.5)
        ticker.stop()
        await asyncio.sleep(1.0)  # the last frames
        session.bridge.drain()
        return status or "timed out"

    with loop:
        status = loop.run_until_complete(run())
        elapsed = time.monotonic() - t0
        session = panels.session
        run_dir = session.run_dir
        logged = [e["seq"] for e in EventReader(run_dir).iter_events()]
        in_model = session.model.store.count
        first_live = seen[0] if seen else 1
        result = {
            "status": status, "seconds": elapsed, "agents": agents, "events": len(logged),
            "rate": len(logged) / elapsed, "in_transcript": in_model,
            "missing": len(logged) - in_model,
            "stream_in_order": seen == list(range(first_live, first_live + len(seen))),
            "window_alive": isValid(window) and window.isVisible(),
            "service_alive": proc.poll() is None,
            "lag_p99_ms": p99(lags) * 1000, "lag_max_ms": max(lags or [0.0]) * 1000,
            "rss_start_mb": rss0, "rss_end_mb": rss_mb(), "log": log, "spikes": spikes,
        }
        loop.run_until_complete(session.close())
        panels.session = None
        window.close()
        app.processEvents()
    collector.stop()
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
    return result


def report(result: dict) -> str:
    ok = (result["status"] == "completed" and result["missing"] == 0
          and result["stream_in_order"] and result["window_alive"] and result["service_alive"])
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        "# Soak: the window attached to the service, scripted agents streaming", "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({os.cpu_count()} cores, Python {platform.python_version()}, load at the end {load}),"
        " by `make soak` (bench/soak_gui.py).", "",
        "| check | value |", "|---|---|",
        f"| result | **{'pass' if ok else 'FAIL'}** |",
        f"| run status | {result['status']} |",
        f"| agents | {result['agents']} |",
        f"| wall time | {result['seconds']:.0f} s |",
        f"| events in the log | {result['events']:,} ({result['rate']:,.0f}/s) |",
        f"| events in the window's transcript | {result['in_transcript']:,} |",
        f"| missing from the transcript | {result['missing']:,} |",
        f"| live stream in seq order, no gap or duplicate | {result['stream_in_order']} |",
        f"| window alive and shown at the end | {result['window_alive']} |",
        f"| service alive at the end | {result['service_alive']} |",
        f"| window event-loop lag p99 / max | {result['lag_p99_ms']:.1f} / "
        f"{result['lag_max_ms']:.0f} ms |",
        f"| pauses over {SPIKE_S * 1000:.0f} ms (at s: ms) | {len(result['spikes'])}: "
        + (", ".join(f"{at:.0f}: {lag * 1000:.0f}" for at, lag in result["spikes"][:12])
           or "none") + " |",
        f"| GUI process RSS start / end | {result['rss_start_mb']:.0f} / "
        f"{result['rss_end_mb']:.0f} MB |", "",
        "Progress, every 30 s:", "", "```", *result["log"], "```", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--output", type=Path, default=HERE / "SOAK.md")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="soak-"))
    try:
        result = soak(args.seconds, args.agents, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    text = report(result)
    args.output.write_text(text)
    print(text)
    return 0 if "**pass**" in text else 1


if __name__ == "__main__":
    sys.exit(main())
