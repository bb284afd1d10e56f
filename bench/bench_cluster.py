"""Agent turns on a Ray cluster against the same turns on this machine.

A throwaway cluster is made for the bench (a head with no CPUs and one worker node,
both on this machine; tests/runtime/ray_cluster.py), and the engine reaches it as a
Ray Client, as it would a remote cluster. Measured, each side by side with the same
work run locally in the same process:

- one scripted turn (a single node that says one line), end to end: a new run
  created, the turn taken, the run completed (median and p99 of N runs). On Ray
  the turn also packs the workspace, places an actor, clones the bundle, spawns
  the agent there and brings back its files and patch. The connection to the
  cluster is made once before the timed runs, as a service would hold it.
- of each Ray turn, the workspace's share of the travel (packing it, sending it and
  cloning it on the worker, then bringing the files and patch back and applying
  it): the issue's "network's share". The turn less that share is held against
  1.5x the local turn.
- events per second streamed back from 20 agents at once (each prints its
  message deltas as fast as it can once every agent waits at a start line,
  bench_runtime's agent): deltas / (start line to the last delta durable in the
  log). Target: Ray at least 50 % of the local rate.

Without Ray installed (``pip install -e '.[cluster]'``) the module reports that
and measures nothing.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from desktop.graph.document import WorkflowDocument
from desktop.runtime.engine import EngineOptions
from desktop.runtime.recovery import create_run

STREAM_SHARE = 0.5
TURN_RATIO = 1.5


class _Travel:
    """Time each Ray turn spends moving its workspace: ``RemoteSession.open`` less the
    actor's placement (``open_link``), plus ``RemoteSession.finish``."""

    def __init__(self) -> None:
        self.spent = 0.0

    def __enter__(self) -> _Travel:
        from desktop.runtime import executor, ray_exec

        self._saved = (executor.RemoteSession.open, executor.RemoteSession.finish,
                       ray_exec.open_link)
        opened, finished, link = self._saved
        travel = self

        async def open_(session: executor.RemoteSession) -> None:
            start = time.perf_counter()
            await opened(session)
            travel.spent += time.perf_counter() - start

        async def finish(session: executor.RemoteSession) -> executor.RemoteResult:
            start = time.perf_counter()
            try:
                return await finished(session)
            finally:
                travel.spent += time.perf_counter() - start

        async def open_link(*args: object) -> ray_exec.RayLink:
            start = time.perf_counter()
            try:
                return await link(*args)
            finally:
                travel.spent -= time.perf_counter() - start

        executor.RemoteSession.open, executor.RemoteSession.finish = open_, finish
        ray_exec.open_link = open_link
        return self

    def __exit__(self, *exc: object) -> None:
        from desktop.runtime import executor, ray_exec

        (executor.RemoteSession.open, executor.RemoteSession.finish,
         ray_exec.open_link) = self._saved

    def take(self) -> float:
        """The time spent since the last take."""
        spent, self.spent = self.spent, 0.0
        return spent


def _one_turn(executor: object) -> WorkflowDocument:
    return WorkflowDocument.model_validate({
        "name": "one turn", "task": "say hi", "executor": executor,
        "nodes": [{"id": "a", "entry": True}],
        "nodeConfigs": {"a": {"script": [{"say": "hi"}]}}})


async def _turn(executor: object, data: Path) -> float:
    start = time.perf_counter()
    engine = create_run(_one_turn(executor), data)
    try:
        status = await asyncio.wait_for(engine.run(), 300)
    finally:
        engine.close()
    if status != "completed":
        raise RuntimeError(f"a one-turn run ended {status}")
    return time.perf_counter() - start


async def _stream(executor: object, agents: int, deltas: int, folder: Path) -> float:
    from bench.bench_runtime import _workflow

    go = folder / "go"
    doc = _workflow(agents, deltas, go)
    doc.executor = executor
    engine = create_run(doc, folder / "data", options=EngineOptions(concurrency=agents + 1))
    seen, started, last = 0, 0, 0.0

    def listen(events: list[dict]) -> None:
        nonlocal seen, started, last
        for e in events:
            if e.get("type") == "message.assistant.delta" and "t" in e:
                seen += 1
                last = time.monotonic()
            elif e.get("busType") == "RUN_START":
                started += 1

    failures: list[str] = []

    def listen_failures(events: list[dict]) -> None:
        failures.extend(str(e.get("error") or e.get("reason") or e.get("message") or e)[:300]
                        for e in events if str(e.get("type", "")).endswith("failed"))

    engine.recorder.listen(listen)
    engine.recorder.listen(listen_failures)
    task = asyncio.create_task(engine.run())
    try:
        while started < agents and not task.done():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # every agent is polling for the start line
        t0 = time.monotonic()
        go.touch()
        status = await asyncio.wait_for(task, 600)
    finally:
        engine.close()
    if status != "completed" or seen != agents * deltas:
        raise RuntimeError(f"stream run ended {status} with {seen} deltas: "
                           f"{'; '.join(failures[:3]) or 'no failure event'}")
    return seen / (last - t0)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _measure(cluster_address: str, root: Path, runs: int, agents: int,
                   deltas: int) -> list[dict]:
    ray = {"kind": "ray", "address": cluster_address, "resources": {"numCpus": 0.05}}
    await _turn(ray, root / "warm")  # connects this engine to the cluster once
    local_t, ray_t, travel_t = [], [], []
    with _Travel() as travel:
        for i in range(runs):  # alternate, so load on the machine hits both alike
            local_t.append(await _turn("local", root / f"local-{i}"))
            travel.take()
            ray_t.append(await _turn(ray, root / f"ray-{i}"))
            travel_t.append(travel.take())
    local_rate = await _stream("local", agents, deltas, root / "stream-local")
    ray_rate = await _stream(ray, agents, deltas, root / "stream-ray")
    med_l, med_r = statistics.median(local_t), statistics.median(ray_t)
    med_travel = statistics.median(travel_t)
    less_travel = statistics.median(r - t for r, t in zip(ray_t, travel_t, strict=True))
    p99_l, p99_r = _pct(local_t, 0.99), _pct(ray_t, 0.99)
    where = f"({runs} runs each)"
    return [
        {"name": f"one scripted turn, whole run, Ray vs local, median {where}",
         "value": round(med_r, 3), "unit": "s", "reference": round(med_l, 3),
         "ratio": round(med_r / med_l, 2)},
        {"name": f"one scripted turn, whole run, Ray vs local, p99 {where}",
         "value": round(p99_r, 3), "unit": "s", "reference": round(p99_l, 3),
         "ratio": round(p99_r / p99_l, 2)},
        {"name": "overhead of a Ray turn over a local one, median",
         "value": round(med_r - med_l, 3), "unit": "s"},
        {"name": "of a Ray turn, the workspace's travel (pack, send, clone; files and "
                 "patch back), median", "value": round(med_travel, 3), "unit": "s"},
        {"name": f"one scripted turn less the workspace's travel, Ray vs local, median {where}",
         "value": round(less_travel, 3), "unit": "s", "reference": round(med_l, 3),
         "ratio": round(less_travel / med_l, 2),
         "target": f"<= {TURN_RATIO:g}x local", "ok": less_travel <= TURN_RATIO * med_l},
        {"name": f"events/s streamed back, {agents} agents x {deltas:,} deltas, Ray vs local",
         "value": round(ray_rate), "unit": "events/s", "reference": round(local_rate),
         "ratio": round(ray_rate / local_rate, 3),
         "target": f">= {STREAM_SHARE:.0%} of local", "ok": ray_rate >= STREAM_SHARE * local_rate},
    ]


def run(quick: bool) -> list[dict]:
    if importlib.util.find_spec("ray") is None:
        return [{"name": "skipped: Ray is not installed (pip install -e '.[cluster]')"}]
    from tests.runtime.ray_cluster import LocalCluster

    root = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    saved = {k: os.environ.get(k) for k in ("HOME", "RAY_AUTH_MODE")}
    cluster = LocalCluster(root / "cluster")
    try:
        cluster.start()
        os.environ.update(HOME=cluster.env["HOME"], RAY_AUTH_MODE="disabled")
        return asyncio.run(_measure(cluster.address, root, 5 if quick else 20,
                                    20, 200 if quick else 2000))
    finally:
        import ray

        ray.shutdown()
        from desktop.runtime import ray_exec

        ray_exec._connected = None
        cluster.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(root, ignore_errors=True)
