"""The budget meters' share of a canvas update: every state change the overlay folds
recomputes each node's meter (:func:`desktop.views.budget_meter.node_meter`) beside its
activity (:func:`desktop.views.activity.node_activity`, the work an update did before
meters). Measured side by side on the same state of N nodes, each with usage and a
budget, half of them running."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from desktop.views.activity import node_activity
from desktop.views.budget_meter import node_meter, run_meter

TARGET = 0.5  # meters may add at most half of what the activity rows cost


def _state(n: int) -> dict[str, Any]:
    ts = datetime.now(UTC).isoformat()
    ids = [f"node-{i:05d}" for i in range(n)]
    return {
        "status": "running", "runningSince": ts, "usage": {"inputTokens": 10.0 * n},
        "budget": {"maxTokens": 100 * n, "maxCostUsd": 5.0},
        "nodes": {i: {"id": i, "label": i, "key": i, "status": "running" if k % 2 else "idle"}
                  for k, i in enumerate(ids)},
        "nodeConfigs": {i: {"budget": {"maxTokens": 1000, "maxWallSec": 600}} for i in ids},
        "nodeUsage": {i: {"inputTokens": 700.0, "outputTokens": 100.0, "costUsd": 0.01,
                          "wallSec": 3.0} for i in ids},
        "runningTurns": {i: {"startedAt": ts} for k, i in enumerate(ids) if k % 2},
        "turns": {}, "inboxes": {}, "pendingApprovals": {},
    }


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run(quick: bool) -> list[dict]:
    rows = []
    for n in ([200] if quick else [1000, 5000]):
        state = _state(n)
        ids = list(state["nodes"])

        def meters(state=state, ids=ids) -> None:
            now = datetime.now(UTC)
            for node_id in ids:
                node_meter(state, node_id, now)
            run_meter(state, now)

        ours = _best(meters, 7)
        ref = _best(lambda state=state: node_activity(state), 7)
        ratio = ours / ref if ref else None
        rows.append({"name": f"budget meters of {n} nodes, one canvas update",
                     "value": round(ours * 1000, 2), "unit": "ms",
                     "reference": round(ref * 1000, 2),
                     "ratio": round(ratio, 2) if ratio is not None else None,
                     "target": f"<= {TARGET} x the activity rows",
                     "ok": ratio is not None and ratio <= TARGET})
    return rows
