"""The engine as a service: events from agent stdout to WebSocket clients, and paging.

A real ``agent-canvas serve`` runs in its own process; this process is the client.
Measured, each against a reference taken in the same run:

- latency of one event, from the agent's write stamp (``time.monotonic()``, a clock
  shared by every process on the machine) to a WebSocket client holding it, with 50
  command agents paced to 30,000 events/s in all (target p99 < 50 ms), and the same
  agents as fast as they can (the burst: throughput, and its p99 for the record).
  Reference: the engine's own subscriber in-process (bench_runtime measures that
  path; here the ratio is service p99 over the engine's p99 at the same pace).
- 20 WebSocket clients on one run: every client gets every event (missing = 0), and
  the engine's throughput stays within 10 % of the same run with one client.
- one page of 100 events over HTTP from the middle of a 1,000,000-event run
  (target < 20 ms); reference: the same page read in-process from the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

AGENT = r"""
import os, sys, time, uuid
go, n, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
while not os.path.exists(go):
    time.sleep(0.0005)
mid, write, now = str(uuid.uuid4()), sys.stdout.write, time.monotonic
group = 10 if rate else n
start = now()
for i in range(n):
    write('{"type":"message.assistant.delta","messageId":"%s","text":"t%d ","t":%.6f}\n'
          % (mid, i, now()))
    if (i + 1) % group == 0:
        sys.stdout.flush()
        if rate:
            time.sleep(max(0.0, start + (i + 1) / rate - now()))
sys.stdout.flush()
"""
PACED_TOTAL = 30_000.0
TARGET_P99_MS = 50.0
TARGET_PAGE_MS = 20.0


def _workflow(agents: int, deltas: int, go: Path, rate: float) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = [{"id": "start", "entry": True}]
    configs: dict[str, Any] = {"start": {"script": [{"say": "go"}]}}
    edges = []
    for i in range(agents):
        key = f"agent{i}"
        nodes.append({"id": key, "provider": "command"})
        configs[key] = {"command": sys.executable,
                        "args": ["-c", AGENT, str(go), str(deltas), str(rate)]}
        edges.append({"from": "start", "to": key})
    return {"name": "bench", "task": "stream", "nodes": nodes, "nodeConfigs": configs,
            "edges": edges}


class Service:
    """``agent-canvas serve`` on a free port in a private data folder."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.token = ""

    def __enter__(self) -> Service:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "desktop", "serve", "--port", "0", "--data-dir",
             str(self.data_dir)], stdout=subprocess.PIPE, text=True, start_new_session=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.startswith("serving "):
            raise RuntimeError(f"serve did not start: {line!r}")
        info = json.loads((self.data_dir / "server.json").read_text())
        self.url, self.token = info["url"], info["token"]
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


async def _stream(session: aiohttp.ClientSession, service: Service, run_id: str,
                  expect: int, stamps: list[float] | None, done: asyncio.Event) -> int:
    """Count deltas (recording stamp-to-receipt latency) until ``expect`` arrived."""
    seen = 0
    ws_url = service.url.replace("http", "ws", 1) + f"/api/runs/{run_id}/stream?after=0"
    async with session.ws_connect(ws_url, headers=service.headers, max_msg_size=0) as ws:
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            now = time.monotonic()
            for event in json.loads(msg.data):
                t = event.get("t")
                if t is not None:
                    seen += 1
                    if stamps is not None:
                        stamps.append(now - t)
            if seen >= expect:
                break
    done.set()
    return seen


async def _one_run(service: Service, agents: int, deltas: int, rate: float, clients: int,
                   folder: Path) -> tuple[float, list[float], list[int]]:
    """events/s (start line to the last delta at the first client), latencies, counts."""
    go = folder / f"go-{rate}-{clients}-{time.monotonic_ns()}"
    expect = agents * deltas
    async with aiohttp.ClientSession(headers=service.headers) as session:
        async with session.post(f"{service.url}/api/runs",
                                json={"workflow": _workflow(agents, deltas, go, rate)}) as r:
            if r.status != 201:
                raise RuntimeError(f"POST /api/runs: {r.status} {await r.text()}")
            run_id = (await r.json())["id"]
        latencies: list[float] = []
        done = [asyncio.Event() for _ in range(clients)]
        tasks = [asyncio.create_task(_stream(session, service, run_id, expect,
                                             latencies if i == 0 else None, done[i]))
                 for i in range(clients)]
        while True:  # every agent is at its start line once all have a RUN_START
            async with session.get(f"{service.url}/api/runs/{run_id}") as r:
                state = await r.json()
            running = state.get("runningTurns") or {}
            if len(running) >= agents:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        t0 = time.monotonic()
        go.touch()
        counts = await asyncio.wait_for(asyncio.gather(*tasks), 600)
        elapsed = time.monotonic() - t0
    return expect / elapsed, latencies, counts


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _write_big_run(data_dir: Path, n: int) -> str:
    """A finished run of ``n`` events written with the store's own writer."""
    from bench.bench_store import _append

    run_id = "0b5e7f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
    run_dir = data_dir / "runs" / run_id
    run_dir.mkdir(parents=True)
    _append(run_dir, n)
    return run_id


async def _page_times(service: Service, run_id: str, seq: int, tries: int) -> list[float]:
    times = []
    async with aiohttp.ClientSession(headers=service.headers) as session:
        for _ in range(tries):
            t0 = time.perf_counter()
            async with session.get(f"{service.url}/api/runs/{run_id}/events",
                                   params={"limit": "100", "before": str(seq)}) as r:
                body = await r.read()
                if r.status != 200:
                    raise RuntimeError(f"events page: {r.status} {body[:200]!r}")
            times.append(time.perf_counter() - t0)
    return times


def _local_page_times(run_dir: Path, seq: int, tries: int) -> list[float]:
    from desktop.views.reader import EventReader

    times = []
    for _ in range(tries):
        t0 = time.perf_counter()
        EventReader(run_dir).page(limit=100, before=seq)
        times.append(time.perf_counter() - t0)
    return times


def run(quick: bool) -> list[dict]:
    """Rows: WebSocket latency and fan-out, and HTTP paging of a large run."""
    agents, deltas = (20, 300) if quick else (50, 1000)
    fan_clients = 5 if quick else 20
    big = 100_000 if quick else 1_000_000
    folder = Path(tempfile.mkdtemp(prefix="bench-service-"))
    rows: list[dict] = []
    label = f"{agents} agents x {deltas} deltas"
    try:
        with Service(folder / "data") as service:
            paced_rate = PACED_TOTAL / agents
            _, paced, _ = asyncio.run(_one_run(service, agents, deltas, paced_rate, 1, folder))
            burst_rate, burst, _ = asyncio.run(_one_run(service, agents, deltas, 0.0, 1, folder))
            fan_rate, _, counts = asyncio.run(
                _one_run(service, agents, deltas, 0.0, fan_clients, folder))
            run_id = _write_big_run(folder / "data", big)
            middle = big // 2
            http = _pct(asyncio.run(_page_times(service, run_id, middle, 50)), 0.5)
        local = _pct(_local_page_times(folder / "data" / "runs" / run_id, middle, 50), 0.5)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    p99 = _pct(paced, 0.99) * 1000
    rows.append({"name": f"agent stdout to WebSocket client p99, paced at "
                         f"{PACED_TOTAL:,.0f} events/s in all ({label})",
                 "value": round(p99, 2), "unit": "ms",
                 "reference": round(statistics.mean(paced) * 1000, 2), "ratio": None,
                 "target": f"< {TARGET_P99_MS:g} ms", "ok": p99 < TARGET_P99_MS})
    rows.append({"name": f"agent stdout to WebSocket client p50, paced ({label})",
                 "value": round(_pct(paced, 0.5) * 1000, 2), "unit": "ms", "reference": None,
                 "ratio": None, "target": None, "ok": None})
    rows.append({"name": f"burst: agent stdout to WebSocket client ({label}, as fast as "
                         "they can)", "value": round(burst_rate), "unit": "events/s",
                 "reference": None, "ratio": None, "target": None, "ok": None})
    rows.append({"name": "burst latency p99, mostly the wait in the pipes behind it",
                 "value": round(_pct(burst, 0.99) * 1000, 2), "unit": "ms",
                 "reference": round(statistics.mean(burst) * 1000, 2), "ratio": None,
                 "target": None, "ok": None})
    missing = sum(agents * deltas - c for c in counts)
    rows.append({"name": f"events missing at {fan_clients} WebSocket clients on one run",
                 "value": missing, "unit": "events", "reference": agents * deltas * fan_clients,
                 "ratio": None, "target": "= 0", "ok": missing == 0})
    ratio = fan_rate / burst_rate
    rows.append({"name": f"engine throughput with {fan_clients} clients (burst) vs 1 client",
                 "value": round(fan_rate), "unit": "events/s", "reference": round(burst_rate),
                 "ratio": round(ratio, 3), "target": ">= 0.9x", "ok": ratio >= 0.9})
    rows.append({"name": f"one page of 100 events over HTTP, middle of a {big:,}-event run",
                 "value": round(http * 1000, 2), "unit": "ms",
                 "reference": round(local * 1000, 2), "ratio": round(http / local, 2),
                 "target": f"< {TARGET_PAGE_MS:g} ms", "ok": http * 1000 < TARGET_PAGE_MS})
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(row)
