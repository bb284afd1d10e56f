"""``GET /api/runs`` with 1,000 runs (200 quick) and 100 callers at once.

The runs are copies of one finished run, each under its own id. The service runs as its
own process; 100 clients, spread over two processes of their own (as real callers are
other programs: windows, consoles, dashboards), ask for the list at the same moment, ten
rounds, and every answer's time is kept. Each client keeps its connection from round to
round, as the app's and the CLI's clients do (one ``aiohttp`` session each); the same
rounds on 100 fresh connections at once are reported beside. Target: p99 under 50 ms.
Reference, in the same run: the same list as the service used to make it, folding every
run folder from its files for each call (:func:`read_every_folder`), timed here for one
call with no contention.

Where the time goes: the CPU the service and the bench's own callers spent per answer
during those rounds (Linux: the service's from /proc), since with 100 answers of ~300 KB
at once each process works through them one after another. And the same rounds with
``If-None-Match`` (what a client that keeps the list sends): 304s with no body. And the
floor of the harness: the same rounds of ``GET /api/health`` (a 49-byte answer, no run
list), so what the list itself adds can be told from what 100 fresh connections at once
cost on this machine.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from bench.measure import serve
from desktop.disk.paths import runs_dir
from desktop.views.runs import open_run

TARGET_P99_MS = 50.0
CALLERS = 100
ROUNDS = 10
PROCESSES = 2


def _one_run(data: Path) -> Path:
    from desktop.graph.document import WorkflowDocument
    from desktop.runtime.recovery import create_run

    doc = WorkflowDocument.model_validate({
        "name": "bench", "task": "list me", "nodes": [{"id": "a", "label": "A", "entry": True}],
        "nodeConfigs": {"a": {"script": [{"say": "done"}]}}, "edges": []})

    async def go() -> Path:
        engine = create_run(doc, data)
        try:
            await engine.run()
        finally:
            engine.close()
        return engine.run_dir
    return asyncio.run(go())


def _copies(source: Path, count: int) -> None:
    old = source.name
    files = {p.relative_to(source): p.read_bytes() for p in source.rglob("*") if p.is_file()}
    for _ in range(count - 1):
        new = str(uuid.uuid4())
        target = source.parent / new
        for rel, data in files.items():
            path = target / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data.replace(old.encode(), new.encode()))


def read_every_folder(root: Path) -> int:
    """The reference: every run folded from its files, as each call used to."""
    return sum(1 for folder in root.iterdir() if folder.is_dir() and open_run(folder))


async def _round(session: aiohttp.ClientSession, url: str, expect: int | None,
                 path: str, callers: int) -> tuple[list[float], float]:
    """One round of ``callers`` at once: each answer's time, and this process's CPU time
    for the round (ms); ``expect``: the rows each answer must hold (None: each must be a
    304 or, off the list, a 200)."""
    cpu = time.process_time()
    bodies: list[bytes] = []

    async def one() -> float:
        start = time.perf_counter()
        async with session.get(f"{url}{path}") as response:
            bodies.append(await response.read())
            status = response.status
        assert status == (304 if expect is None and path == "/api/runs" else 200), status
        return (time.perf_counter() - start) * 1000
    times = list(await asyncio.gather(*(one() for _ in range(callers))))
    cpu = (time.process_time() - cpu) * 1000
    # decoded after the clocks stop: the clients share this process with the timing
    if expect is not None:
        assert all(len(orjson.loads(b)["runs"]) == expect for b in bodies)
    return times, cpu


def _cpu_ms(pid: int) -> float | None:
    """CPU time (user + system) of process ``pid`` so far, in ms; None without /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _session(headers: dict[str, str], kept: bool) -> aiohttp.ClientSession:
    """The callers' session: a connection each (``kept``: reused from round to round)."""
    connector = aiohttp.TCPConnector(limit=CALLERS, force_close=not kept)
    return aiohttp.ClientSession(headers=headers, connector=connector)


def _caller_process(url: str, headers: dict[str, str], expect: int | None, path: str,
                    kept: bool, callers: int, barrier: Any) -> tuple[list[float], float]:
    """One process's share of the callers over ROUNDS rounds (after one that opens the
    connections), each round started with the other processes': its answers' times and
    its CPU per answer (ms)."""
    async def go() -> tuple[list[float], float]:
        async with _session(headers, kept) as session:
            await _round(session, url, expect, path, callers)
            times: list[float] = []
            cpu = 0.0
            for _ in range(ROUNDS):
                barrier.wait()
                answers, used = await _round(session, url, expect, path, callers)
                times += answers
                cpu += used / len(answers)
            return times, cpu / ROUNDS
    return asyncio.run(go())


def _rounds(url: str, headers: dict[str, str], expect: int | None, pid: int,
            path: str = "/api/runs", *, kept: bool = True
            ) -> tuple[list[float], float | None, float]:
    """ROUNDS rounds of CALLERS at once from PROCESSES processes: every answer's time, and
    the service's and the callers' CPU per answer (ms)."""
    context = multiprocessing.get_context("spawn")
    share = CALLERS // PROCESSES
    with context.Manager() as manager:
        barrier = manager.Barrier(PROCESSES + 1)
        with context.Pool(PROCESSES) as pool:
            jobs = [pool.apply_async(_caller_process,
                                     (url, headers, expect, path, kept, share, barrier))
                    for _ in range(PROCESSES)]
            service = None
            for i in range(ROUNDS):
                barrier.wait()  # every process has opened its connections (or the last
                if i == 0:      # round is over): the service's CPU counts from here
                    service = _cpu_ms(pid)
            results = [job.get(timeout=600) for job in jobs]
    times = sorted(t for answers, _cpu in results for t in answers)
    callers = statistics.fmean(cpu for _answers, cpu in results)
    after = _cpu_ms(pid)
    used = (after - service) / len(times) if after is not None and service is not None \
        else None
    return times, used, callers


def _p99(times: list[float]) -> float:
    return times[int(len(times) * 0.99) - 1]


def _etag(url: str, headers: dict[str, str]) -> str:
    async def get() -> str:
        async with aiohttp.ClientSession(headers=headers) as session, \
                session.get(f"{url}/api/runs") as response:
            return response.headers["ETag"]
    return asyncio.run(get())


def run(quick: bool) -> list[dict]:
    """Rows: p50 and p99 of the list under 100 callers, against a fold of every folder."""
    count = 200 if quick else 1000
    folder = Path(tempfile.mkdtemp(prefix="bench-run-list-"))
    try:
        data = folder / "data"
        _copies(_one_run(data), count)
        start = time.perf_counter()
        assert read_every_folder(runs_dir(data)) == count
        reference_ms = (time.perf_counter() - start) * 1000
        proc, info = serve(data, 4)
        try:
            headers = {"Authorization": f"Bearer {info.token}"}
            times, service_cpu, callers_cpu = _rounds(info.url, headers, count, proc.pid)
            fresh, _, _ = _rounds(info.url, headers, count, proc.pid, kept=False)
            kept = {**headers, "If-None-Match": _etag(info.url, headers)}
            unchanged, _, _ = _rounds(info.url, kept, None, proc.pid)
            floor, _, _ = _rounds(info.url, headers, None, proc.pid, "/api/health",
                                  kept=False)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    p99 = _p99(times)
    label = f"GET /api/runs, {count:,} runs, {CALLERS} callers at once"
    row = {"reference": None, "ratio": None, "target": None, "ok": None}
    return [
        {**row, "name": f"{label}: p50", "value": round(statistics.median(times), 1),
         "unit": "ms"},
        {"name": f"{label}: p99 (reference: one call folding every folder)",
         "value": round(p99, 1), "unit": "ms", "reference": round(reference_ms, 1),
         "ratio": round(p99 / reference_ms, 3), "target": f"< {TARGET_P99_MS:.0f} ms",
         "ok": p99 < TARGET_P99_MS},
        {**row, "name": f"{label}: the service's CPU per answer",
         "value": None if service_cpu is None else round(service_cpu, 3), "unit": "ms"},
        {**row, "name": f"{label}: the callers' CPU per answer ({PROCESSES} processes)",
         "value": round(callers_cpu, 3), "unit": "ms"},
        {**row, "name": f"{label}, each on a fresh connection: p99", "value":
         round(_p99(fresh), 1), "unit": "ms"},
        {**row, "name": f"{label} with If-None-Match (304, no body): p99",
         "value": round(_p99(unchanged), 1), "unit": "ms"},
        {**row, "name": f"GET /api/health, {CALLERS} callers at once on fresh connections "
         "(the harness's floor for them): p99", "value": round(_p99(floor), 1), "unit": "ms"},
    ]


if __name__ == "__main__":
    for row in run("--quick" in sys.argv):
        print(row)
    os._exit(0)
