"""Subflows at scale: what expanding them costs at run start, and what the engine's
check for finished subflow steps costs each time its loop wakes.

- Run start: ``run.created`` of 1,000 agent nodes as 50 uses of one 20-node subflow
  file (each use read from disk, as a run does), against the same 1,000 nodes and
  edges in one flat document. Target: at most 2x the flat graph.
- Loop check: :func:`desktop.runtime.subflow_step.finishing` on that run's state
  with all 50 steps running and one input waiting inside each, against
  ``Scheduler.ready`` on the same state, which the loop already calls each time.
  Target: at most 2x ``ready``.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from itertools import pairwise
from pathlib import Path

import orjson

from desktop.graph.io import load_workflow
from desktop.graph.subflows import resolve_subflows
from desktop.runtime.run_setup import run_created_event
from desktop.runtime.scheduler import Scheduler
from desktop.runtime.subflow_step import enter_events, finishing
from desktop.store.reducer import fold

RUN = "11111111-2222-3333-4444-555555555555"
USES, INNER = 50, 20
TARGET = 2.0


def _chain(keys: list[str]) -> list[dict]:
    return [{"from": a, "to": b} for a, b in pairwise(keys)]


def _files(folder: Path) -> tuple[Path, Path]:
    inner = [f"n{i}" for i in range(INNER)]
    (folder / "part.flow.yaml").write_text(orjson.dumps({
        "name": "part", "nodes": [{"id": k, "entry": k == "n0"} for k in inner],
        "edges": _chain(inner)}).decode())
    uses = [f"u{i}" for i in range(USES)]
    nested = folder / "nested.flow.yaml"
    nested.write_text(orjson.dumps({
        "name": "nested", "nodes": [{"id": u, "entry": u == "u0", "kind": "subflow",
                                     "flow": "part.flow.yaml"} for u in uses],
        "edges": _chain(uses)}).decode())
    flat_keys = [f"{u}-{k}" for u in uses for k in inner]
    flat = folder / "flat.flow.yaml"
    flat.write_text(orjson.dumps({
        "name": "flat", "nodes": [{"id": k, "entry": k == flat_keys[0]} for k in flat_keys],
        "edges": _chain(flat_keys)}).decode())
    return nested, flat


def _created(path: Path) -> dict:
    doc = load_workflow(path)
    return run_created_event(doc, RUN, mode="AUTO", global_mode="IMPLEMENTATION",
                             workflow_path=str(path), subflows=resolve_subflows(doc, path))


def _best(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def run(quick: bool = False) -> list[dict]:
    """The rows of this bench."""
    folder = Path(tempfile.mkdtemp(prefix="bench-subflow-"))
    try:
        nested, flat = _files(folder)
        repeat = 3 if quick else 7
        start_nested = _best(lambda: _created(nested), repeat)
        start_flat = _best(lambda: _created(flat), repeat)
        created = {**_created(nested), "ts": "2026-01-01T00:00:00.000Z", "seq": 1}
        state = fold(None, created)
        steps = [nid for nid, n in state.nodes.items() if n.subflow]
        for step in steps:
            state = fold(state, {"type": "inbox.queued", "nodeId": step, "item": {
                "id": f"i-{step}", "kind": "task", "text": "go",
                "queuedAt": "2026-01-01T00:00:00.000Z"}, "ts": "2026-01-01T00:00:00.000Z"})
            for event in enter_events(state, step):
                state = fold(state, {**event, "ts": "2026-01-01T00:00:00.000Z"})
        scheduler = Scheduler(4)
        loops = 200 if quick else 1000
        check = statistics.median(_best(lambda: finishing(state, set()), 1)
                                  for _ in range(loops))
        ready = statistics.median(_best(lambda: scheduler.ready(state, set()), 1)
                                  for _ in range(loops))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return [
        {"name": f"run.created, {USES} uses of a {INNER}-node subflow (reference: the same "
                 f"{USES * INNER} nodes flat)",
         "value": round(start_nested, 4), "unit": "s", "reference": round(start_flat, 4),
         "ratio": round(start_nested / start_flat, 2), "target": f"<= {TARGET:g}x flat",
         "ok": start_nested / start_flat <= TARGET},
        {"name": f"finished-step check per loop wake, {USES} steps running, "
                 f"{USES * INNER} inner nodes (reference: Scheduler.ready)",
         "value": round(check * 1000, 3), "unit": "ms", "reference": round(ready * 1000, 3),
         "ratio": round(check / ready, 2), "target": f"<= {TARGET:g}x ready",
         "ok": check / ready <= TARGET},
    ]
