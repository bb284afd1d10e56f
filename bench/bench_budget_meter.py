"""The budget meters' share of a canvas update, beside the activity rows
(:func:`desktop.views.activity.node_activity`, the work an update did before meters).

A canvas update is what the window does with one frame of a run's events: the run bridge
(desktop/ui/run/bridge.py) hands every 16 ms the events that came in that frame to the
run's :class:`~desktop.views.state.RunProjection`, which folds them, and the canvas
overlay brings its cards up to the new state; its meters through
:meth:`desktop.views.canvas_meters.CanvasMeters.update`, the call measured here. The run
has N nodes, each with usage and a budget of tokens and time, half of them running a turn
(so half the meters move with the clock). A frame's batch is what a busy run sends: three
running nodes streaming deltas and a heartbeat, two of them reporting usage, and every
tenth frame one turn ending and another starting. The clock moves 1/60 s a frame, and the
figure is the mean over a second of 60 frames, the once-a-second recount of the meters
that move with the clock included. The fold is not timed: it is the same for both sides.
Every node's meter recomputed on each update, as before, is reported beside it.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

from desktop.views.activity import node_activity
from desktop.views.budget_meter import node_meter
from desktop.views.canvas_meters import CanvasMeters
from desktop.views.state import RunProjection

TARGET = 0.5  # meters may add at most half of what the activity rows cost
RUN = "00000000-0000-4000-8000-00000000b0d9"
T0 = datetime(2026, 1, 1, tzinfo=UTC)
FRAMES = 60  # one second of frames at the bridge's 16 ms


def _event(kind: str, t: float, seq: int, **fields: Any) -> dict:
    return {"type": kind, "runId": RUN, "ts": (T0 + timedelta(seconds=t)).isoformat(),
            "seq": seq, **fields}


def _run(n: int) -> tuple[RunProjection, list[str]]:
    """A run of ``n`` nodes with usage and budgets, the odd ones running a turn."""
    ids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(n)]
    nodes = {i: {"id": i, "runId": RUN, "label": f"node {k}", "key": f"node-{k}"}
             for k, i in enumerate(ids)}
    configs = {i: {"budget": {"maxTokens": 100_000, "maxWallSec": 3600}} for i in ids}
    events = [_event("run.created", 0, 1, workflowName="bench", task="go", nodes=nodes,
                     nodeConfigs=configs, budget={"maxTokens": 100 * n, "maxCostUsd": 5.0}),
              _event("run.started", 0, 2)]
    for k, i in enumerate(ids):
        events.append(_event("telemetry.usage", 0, len(events) + 1, nodeId=i,
                             inputTokens=700, outputTokens=100, costUsd=0.01))
        if k % 2:
            events.append(_event("turn.status", 0, len(events) + 1, nodeId=i,
                                 status="started", turnId=f"t{k}", inboxItemIds=[]))
    projection = RunProjection()
    projection.extend(events)
    return projection, ids


class _Frames:
    """The batches a busy run sends, frame after frame."""

    def __init__(self, projection: RunProjection, ids: list[str]) -> None:
        self.seq = projection.last_seq
        self.running = [i for k, i in enumerate(ids) if k % 2]
        self.idle = [i for k, i in enumerate(ids) if not k % 2]
        self.frame = 0

    def next(self, t: float) -> list[dict]:
        batch: list[dict] = []

        def add(kind: str, **fields: Any) -> None:
            self.seq += 1
            batch.append(_event(kind, t, self.seq, **fields))

        streaming = [self.running[(self.frame + j) % len(self.running)] for j in range(3)]
        for node_id in streaming:
            for _ in range(8):
                add("message.assistant.delta", nodeId=node_id, text="tok")
            add("node.heartbeat", nodeId=node_id)
        for node_id in streaming[:2]:
            add("telemetry.usage", nodeId=node_id, inputTokens=40, outputTokens=12,
                costUsd=0.0004)
        if self.frame % 10 == 9:  # a turn ends and another starts
            done, start = self.running.pop(0), self.idle.pop(0)
            add("turn.status", nodeId=done, status="completed", turnId="t")
            add("turn.status", nodeId=start, status="started", turnId="t", inboxItemIds=[])
            self.running.append(start)
            self.idle.append(done)
        self.frame += 1
        return batch


def _second(projection: RunProjection, frames: _Frames, meters: CanvasMeters,
            start: float) -> tuple[float, float, float]:
    """Mean seconds per frame over one second of frames: the meters' update, the
    activity rows, and every node's meter recomputed (on every tenth frame)."""
    ours = ref = full = 0.0
    for k in range(FRAMES):
        t = start + k / FRAMES
        now = T0 + timedelta(seconds=t)
        projection.apply(frames.next(t))
        state = projection.state
        began = time.perf_counter()
        meters.update(state, projection, now)
        ours += time.perf_counter() - began
        began = time.perf_counter()
        node_activity(state)
        ref += time.perf_counter() - began
        if k % 10 == 0:
            began = time.perf_counter()
            for node_id in state["nodes"]:
                node_meter(state, node_id, now)
            full += time.perf_counter() - began
    return ours / FRAMES, ref / FRAMES, full / (FRAMES // 10)


def run(quick: bool) -> list[dict]:
    rows = []
    for n in ([200] if quick else [1000, 5000]):
        projection, ids = _run(n)
        frames, meters = _Frames(projection, ids), CanvasMeters()
        meters.update(projection.state, projection, T0)  # the canvas shows the run
        seconds = [_second(projection, frames, meters, 1.0 + s)
                   for s in range(2 if quick else 5)]
        ours = min(s[0] for s in seconds)
        ref = min(s[1] for s in seconds)
        full = min(s[2] for s in seconds)
        ratio = ours / ref if ref else None
        rows.append({"name": f"budget meters of {n} nodes, one canvas update",
                     "value": round(ours * 1000, 3), "unit": "ms",
                     "reference": round(ref * 1000, 2),
                     "ratio": round(ratio, 3) if ratio is not None else None,
                     "target": f"<= {TARGET} x the activity rows",
                     "ok": ratio is not None and ratio <= TARGET})
        rows.append({"name": f"every node's meter recomputed, {n} nodes (each update "
                             "before it was kept)",
                     "value": round(full * 1000, 2), "unit": "ms",
                     "reference": round(ref * 1000, 2),
                     "ratio": round(full / ref, 2) if ref else None,
                     "target": None, "ok": None})
    return rows
