"""``GET /api/runs`` with 1,000 runs (200 quick) and 100 callers at once.

The runs are copies of one finished run, each under its own id. The service runs as its
own process; 100 clients in this process ask for the list at the same moment, ten rounds,
and every answer's time is kept. Target: p99 under 50 ms. Reference, in the same run:
the same list as the service used to make it, folding every run folder from its files
for each call (:func:`read_every_folder`), timed here for one call with no contention.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import aiohttp
import orjson

from bench.measure import serve
from desktop.store.paths import runs_dir
from desktop.views.runs import open_run

TARGET_P99_MS = 50.0
CALLERS = 100
ROUNDS = 10


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


async def _round(url: str, headers: dict[str, str], expect: int) -> list[float]:
    async with aiohttp.ClientSession(headers=headers) as session:
        bodies: list[bytes] = []

        async def one() -> float:
            start = time.perf_counter()
            async with session.get(f"{url}/api/runs") as response:
                bodies.append(await response.read())
            return (time.perf_counter() - start) * 1000
        times = list(await asyncio.gather(*(one() for _ in range(CALLERS))))
    # decoded after the clock stops: the clients share this process with the timing
    assert all(len(orjson.loads(b)["runs"]) == expect for b in bodies)
    return times


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
            asyncio.run(_round(info.url, headers, count))  # the first fold of every run
            times: list[float] = []
            for _ in range(ROUNDS):
                times += asyncio.run(_round(info.url, headers, count))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    times.sort()
    p99 = times[int(len(times) * 0.99) - 1]
    label = f"GET /api/runs, {count:,} runs, {CALLERS} callers at once"
    return [
        {"name": f"{label}: p50", "value": round(statistics.median(times), 1), "unit": "ms",
         "reference": None, "ratio": None, "target": None, "ok": None},
        {"name": f"{label}: p99 (reference: one call folding every folder)",
         "value": round(p99, 1), "unit": "ms", "reference": round(reference_ms, 1),
         "ratio": round(p99 / reference_ms, 3), "target": f"< {TARGET_P99_MS:.0f} ms",
         "ok": p99 < TARGET_P99_MS},
    ]


if __name__ == "__main__":
    for row in run("--quick" in sys.argv):
        print(row)
    os._exit(0)
