"""Opening a run that no service holds, from its folder, and asking the service for one.

- Open from the folder (the app without a service): the read of the log, one pass that
  builds the transcript's index and gives the projection its events. Reference, in the
  same run: what opening read before, the transcript's index and a tail read of the whole
  log, each reading it. The fold that follows is the same in both and is not timed (the
  first call of the second row is that fold). One and two passes take turns, best of five.
- ``GET /api/runs/{id}`` of a finished run, asked again with its files unchanged: the kept
  fold (a few stats, on a worker thread). Reference: the first call, which folds the log.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from bench.bench_store import RUN_ID, _append
from desktop.api.folded import FoldedRuns
from desktop.views.events import FileEvents
from desktop.views.reader import LogTail


def _one_pass(run_dir: Path) -> float:
    t0 = time.perf_counter()
    store = FileEvents(run_dir / "events.jsonl")
    events = store.read_all()
    spent = time.perf_counter() - t0
    store.close()
    assert events[-1]["seq"] == store.count
    return spent


def _two_passes(run_dir: Path) -> float:
    t0 = time.perf_counter()
    store = FileEvents(run_dir / "events.jsonl")
    events = LogTail(run_dir).read_new()
    while not store.index_step():
        pass
    spent = time.perf_counter() - t0
    store.close()
    assert events[-1]["seq"] == store.count
    return spent


def _fold_calls(run_dir: Path) -> tuple[float, float]:
    """Seconds of the first call (a fold) and of the best of five later ones (kept)."""
    async def go() -> tuple[float, float]:
        runs = FoldedRuns()
        t0 = time.perf_counter()
        await runs.state(run_dir)
        first = time.perf_counter() - t0
        kept = []
        for _ in range(5):
            t0 = time.perf_counter()
            await runs.state(run_dir)
            kept.append(time.perf_counter() - t0)
        assert runs.folds == 1
        return first, min(kept)

    return asyncio.run(go())


def run(quick: bool) -> list[dict]:
    """Rows for a run of 200,000 events (50,000 quick)."""
    n = 50_000 if quick else 200_000
    tmp = Path(tempfile.mkdtemp(prefix="bench-open-run-"))
    try:
        run_dir = tmp / RUN_ID
        _append(run_dir, n)
        ones, twos = [], []
        for _ in range(5):  # in turns, so load that comes and goes falls on both
            ones.append(_one_pass(run_dir))
            twos.append(_two_passes(run_dir))
        one_s, two_s = min(ones), min(twos)
        first_s, kept_s = _fold_calls(run_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return [
        {"name": f"open a run of {n:,} events from its folder: one read of the log",
         "value": one_s, "unit": "s", "reference": two_s, "ratio": one_s / two_s,
         "target": "<= 0.6x reading it twice", "ok": one_s <= 0.6 * two_s},
        {"name": f"GET /api/runs/{{id}} again, {n:,} events unchanged (kept fold)",
         "value": kept_s * 1e3, "unit": "ms", "reference": first_s * 1e3,
         "ratio": kept_s / first_s, "target": "<= 0.01x the fold", "ok": kept_s <= 0.01 * first_s},
    ]
