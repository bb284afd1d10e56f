"""Agent turns on a real Ray cluster made for the test (make test-cluster).

A head and one worker node run on this machine (tests/runtime/ray_cluster.py); the
worker keeps its agents' folders under a folder the engine never uses, so a test
that passes shows nothing leans on a shared path.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")

from engine_helpers import approve_everything, events_of, of_type, run_doc, until, workflow
from executor_checks import (
    EXAMPLES,
    example,
    per_node_types,
    processes_of,
    type_counts,
    workspace_files,
)
from ray_cluster import LocalCluster

from desktop.runtime.recovery import create_run

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(600)]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    reuse = os.environ.get("AGENT_CANVAS_TEST_CLUSTER")  # a LocalCluster folder kept running
    if reuse:
        made = LocalCluster(Path(reuse))
        made.address = (Path(reuse) / "address").read_text().strip()
        os.environ.update(HOME=made.env["HOME"], RAY_AUTH_MODE="disabled")
        yield made
        return
    root = tmp_path_factory.mktemp("ray")
    saved = {k: os.environ.get(k) for k in ("HOME", "RAY_AUTH_MODE", "RAY_USAGE_STATS_ENABLED")}
    with LocalCluster(root) as made:
        os.environ.update(HOME=made.env["HOME"], RAY_AUTH_MODE="disabled",
                          RAY_USAGE_STATS_ENABLED="0")
        try:
            yield made
        finally:
            import ray

            from desktop.runtime import ray_exec

            ray.shutdown()
            ray_exec._connected = None
            ray_exec._hosts = None  # its idle actors were on the cluster just ended
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def _ray(cluster: LocalCluster, **resources) -> dict:
    return {"kind": "ray", "address": cluster.address,
            "resources": {"numCpus": 0.5, **resources}}


def _cli(*args: str, data: Path, env: dict, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "desktop", *args, "--data-dir", str(data)],
                            cwd=ROOT, env=dict(env, PYTHONPATH=str(ROOT)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def _worker_empty(cluster: LocalCluster) -> bool:
    return not any(cluster.worker_dir.iterdir())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name.split(".")[0])
async def test_every_example_completes_on_the_cluster_like_locally(
        path: Path, cluster: LocalCluster, tmp_path: Path) -> None:
    local = await run_doc(example(path), tmp_path / "local", approve=True)
    remote = create_run(example(path, _ray(cluster)), tmp_path / "engine")
    approve_everything(remote)
    try:
        assert await asyncio.wait_for(remote.run(), 400) == "completed"
    finally:
        remote.close()
    here, there = events_of(local.run_dir), events_of(remote.run_dir)
    assert per_node_types(here) == per_node_types(there)
    assert type_counts(here) == type_counts(there)
    assert workspace_files(local.run_dir / "workspace") == \
        workspace_files(remote.run_dir / "workspace")
    agent = of_type(there, "turn.status", status="completed")[0]["agentRunId"]
    runner = json.loads((remote.run_dir / "agents" / agent / "runner.json").read_text())
    assert len(runner["ephemeral"]["host_id"]) == 56  # a Ray node id
    await until(lambda: _worker_empty(cluster), 60)


def test_a_gated_call_on_a_worker_is_approved_from_the_cli(cluster: LocalCluster,
                                                           tmp_path: Path) -> None:
    flow = tmp_path / "gated.flow.yaml"
    flow.write_text(json.dumps({
        "name": "gated", "task": "t", "nodes": [{"id": "a", "entry": True,
                                                  "permissions": {"cliPermissionsMode": "gated"}}],
        "nodeConfigs": {"a": {"script": [{"shell": "echo from-the-worker > out.txt"},
                                         {"say": "done"}]}}}))
    with _cli("run", str(flow), "--executor", cluster.address, data=tmp_path / "data",
              env=os.environ.copy(), stdin=subprocess.PIPE) as proc:
        try:  # the person at the terminal answers once the question is on the screen
            _events_when(lambda: next((tmp_path / "data" / "runs").iterdir(), None)
                         if (tmp_path / "data" / "runs").exists() else None,
                         lambda ev: of_type(ev, "approval.requested"), proc, cluster)
            _, err = proc.communicate(b"approve\n", timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, err.decode()[-2000:]
    run_dir = next((tmp_path / "data" / "runs").iterdir())
    assert (run_dir / "workspace" / "out.txt").read_text() == "from-the-worker\n"
    resolved = of_type(events_of(run_dir), "approval.resolved")
    assert [r["resolution"]["status"] for r in resolved] == ["approved"]


async def test_stop_mid_turn_leaves_no_process_on_the_worker(cluster: LocalCluster,
                                                             tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"shell": "sleep 900 & sleep 900"}, {"hang": True}]}},
                   executor=_ray(cluster))
    engine = create_run(doc, tmp_path / "engine")
    approve_everything(engine)
    task = asyncio.create_task(engine.run())
    await until(lambda: of_type(events_of(engine.run_dir), "tool.started"), 300)
    agent_run = next(iter(engine.state.running_turns.values()))["agentRunId"]
    assert processes_of(agent_run)
    await engine.stop()
    assert await asyncio.wait_for(task, 120) == "stopped"
    engine.close()
    await until(lambda: not processes_of(agent_run), 60)
    await until(lambda: _worker_empty(cluster), 60)


async def test_the_next_agent_run_reuses_the_actor_the_last_one_left(
        cluster: LocalCluster, tmp_path: Path) -> None:
    from desktop.runtime import ray_exec

    doc = workflow({"a": {"script": [{"say": "hi"}]}}, executor=_ray(cluster))
    ray_exec._pool().release()
    actors = []
    for attempt in range(2):
        engine = create_run(doc, tmp_path / f"engine{attempt}")
        try:
            assert await asyncio.wait_for(engine.run(), 300) == "completed"
        finally:
            engine.close()
        pool = ray_exec._pool()
        assert pool.size() == 1  # closed cleanly: kept for the next agent run
        [[(_, actor)]] = pool._idle.values()
        actors.append(actor._actor_id)
    assert actors[0] == actors[1]
    assert _worker_empty(cluster)  # the agent runs' folders went with them


async def test_a_worker_process_that_dies_fails_the_attempt_and_the_retry_completes(
        cluster: LocalCluster, tmp_path: Path) -> None:
    import ray

    from desktop.runtime.ray_exec import find_host

    # the retry plays the same script: it waits a little, then finishes
    doc = workflow({"a": {"script": [{"say": "working"}, {"sleep": 15}, {"say": "finished"}],
                          "limits": {"retries": 1, "retryBackoffSec": 0}}},
                   executor=_ray(cluster))
    engine = create_run(doc, tmp_path / "engine")
    task = asyncio.create_task(engine.run())
    await until(lambda: of_type(events_of(engine.run_dir), "message.assistant.final"), 300)
    first = next(iter(engine.state.running_turns.values()))["agentRunId"]
    ray.kill(await find_host(first))  # the worker dies
    assert await asyncio.wait_for(task, 300) == "completed"
    engine.close()
    events = events_of(engine.run_dir)
    crash = of_type(events, "bus.message", busType="RUN_CRASH")
    assert [c["agentRunId"] for c in crash] == [first]
    assert "was lost" in crash[0]["message"]
    assert "working" in (engine.run_dir / "agents" / first / "agent-stdout.txt").read_text()
    await until(lambda: not processes_of(first), 60)


def _events_when(run_dir_of, predicate, proc: subprocess.Popen, cluster: LocalCluster,
                 timeout: float = 300):
    """Poll the run's log until ``predicate(events)`` holds (the process must live on,
    and the run must not pause: it would wait for a person)."""
    deadline = time.monotonic() + timeout
    while True:
        run_dir = run_dir_of()
        events = events_of(run_dir) if run_dir else []
        if events and predicate(events):
            return run_dir, events
        if paused := of_type(events, "run.paused"):
            pytest.fail(f"the run paused: {paused[-1]['reason']}\n"
                        f"{cluster.client_server_logs()}")
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:] if proc.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_kill_9_of_the_engine_mid_turn_ends_its_agent_then_resume(cluster: LocalCluster,
                                                   tmp_path: Path) -> None:
    flow = tmp_path / "slow.flow.yaml"
    flow.write_text(json.dumps({
        "name": "slow", "task": "t", "nodes": [{"id": "a", "entry": True}],
        "nodeConfigs": {"a": {"script": [{"edit": {"path": "a.txt", "content": "a\n"}},
                                         {"say": "waiting"}, {"sleep": 30},
                                         {"say": "done"}]}}}))
    data = tmp_path / "data"

    def run_dir_of():
        found = list((data / "runs").glob("*/events.jsonl")) if (data / "runs").exists() else []
        return found[0].parent if found else None

    def starts(events):
        return [e for e in events if e.get("busType") == "RUN_START"]

    with _cli("run", str(flow), "--executor", cluster.address, data=data,
              env=os.environ.copy(), stdin=subprocess.DEVNULL) as engine:
        try:
            run_dir, events = _events_when(
                run_dir_of, lambda ev: of_type(ev, "message.assistant.final"), engine, cluster)
            first = starts(events)[0]["agentRunId"]
            os.kill(engine.pid, signal.SIGKILL)
            engine.wait(timeout=30)
        finally:
            if engine.poll() is None:
                engine.kill()
    # the killed engine renews no lease: its agent on the cluster ends on its own
    deadline = time.monotonic() + 60
    while processes_of(first):
        assert time.monotonic() < deadline, "the agent outlived its engine's lease"
        time.sleep(0.2)
    with _cli("resume", run_dir.name, data=data, env=os.environ.copy(),
              stdin=subprocess.DEVNULL) as resumed:
        try:
            _events_when(run_dir_of, lambda ev: len(starts(ev)) > 1, resumed, cluster)
            assert not processes_of(first)
            _, err = resumed.communicate(timeout=300)
            assert resumed.returncode == 0, err.decode()[-2000:]
        finally:
            if resumed.poll() is None:
                resumed.kill()
    events = events_of(run_dir)
    assert [e["agentRunId"] for e in of_type(events, "turn.status", status="interrupted")] \
        == [first]
    assert (run_dir / "workspace" / "a.txt").read_text() == "a\n"
    # what the first agent printed before the engine died is kept
    assert "waiting" in (run_dir / "agents" / first / "agent-stdout.txt").read_text()


async def test_an_agent_no_node_can_take_fails_at_once_naming_the_resources(
        cluster: LocalCluster, tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"say": "hi"}]}},
                   executor=_ray(cluster, numCpus=64, gpu_x=1))
    engine = create_run(doc, tmp_path / "engine")
    assert await asyncio.wait_for(engine.run(), 120) == "failed"
    engine.close()
    reason = of_type(events_of(engine.run_dir), "run.failed")[0]["reason"]
    assert "no node of the Ray cluster" in reason and "gpu_x" in reason


async def test_an_unreachable_address_is_refused_within_seconds() -> None:
    from ray_cluster import free_port

    from desktop.contract.executor import RayExecutor
    from desktop.runtime import ray_exec
    from desktop.runtime.executor import ExecutorUnavailable

    address = f"ray://127.0.0.1:{free_port()}"  # nothing listens there
    with pytest.raises(ExecutorUnavailable, match="cannot be reached"):
        await asyncio.wait_for(ray_exec.connect(RayExecutor(address=address)),
                               ray_exec.PREFLIGHT_SEC + 5)
