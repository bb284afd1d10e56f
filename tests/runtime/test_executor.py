"""Agent runs on a remote executor, the worker in this process (loopback_link.py).

Everything but the network is real: the workspace travels as a git bundle into a
folder the engine never uses, the agent runs there with the paths rewritten, its
output and bus posts come back over the link, and its change comes back as a patch.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from engine_helpers import approve_everything, events_of, of_type, run_doc, until, workflow
from executor_checks import (
    EXAMPLES,
    example,
    per_node_types,
    processes_of,
    type_counts,
    workspace_files,
)
from loopback_link import install

from desktop.runtime.engine import EngineOptions
from desktop.runtime.recovery import create_run, resume_engine

RAY = {"kind": "ray", "address": "ray://cluster.example:10001"}


@pytest.fixture
def worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    return install(monkeypatch, tmp_path / "worker")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name.split(".")[0])
async def test_every_example_runs_remotely_like_locally(path: Path, tmp_path: Path,
                                                        worker) -> None:
    local = await run_doc(example(path), tmp_path / "local", approve=True)
    remote = await run_doc(example(path, RAY), tmp_path / "remote", approve=True)
    assert str(local.state.status) == str(remote.state.status) == "completed"
    here, there = events_of(local.run_dir), events_of(remote.run_dir)
    assert per_node_types(here) == per_node_types(there)
    assert type_counts(here) == type_counts(there)
    assert workspace_files(local.run_dir / "workspace") == \
        workspace_files(remote.run_dir / "workspace")
    assert worker.hosts and all(h.root is None for h in worker.hosts)
    assert not any((tmp_path / "worker").iterdir())  # every worker folder was removed
    # nothing the engine keeps names the worker's folders
    for agent in (remote.run_dir / "agents").iterdir():
        for name in ("output.md", "prompt.md", "run-info.yaml"):
            assert "worker" not in (agent / name).read_text()


async def test_the_agent_works_in_the_workers_folder_and_the_run_folder_is_whole(
        tmp_path: Path, worker) -> None:
    doc = workflow({"a": {"script": [
        {"shell": "pwd > where.txt; echo \"$RUN_FOLDER\" >> where.txt"},
        {"bus": {"type": "FACT", "message": "posted from the worker"}},
        {"write_output": "the answer"}, {"say": "done"}]}}, executor=RAY)
    engine = await run_doc(doc, tmp_path / "engine", approve=True)
    assert str(engine.state.status) == "completed"
    where = (engine.run_dir / "workspace" / "where.txt").read_text().split()
    assert all(str(tmp_path / "worker") in line for line in where)
    events = events_of(engine.run_dir)
    agent_run = of_type(events, "turn.status", status="completed")[0]["agentRunId"]
    posted = of_type(events, "bus.message", busType="FACT")
    assert [(p["message"], p["agentRunId"]) for p in posted] == \
        [("posted from the worker", agent_run)]
    folder = engine.run_dir / "agents" / agent_run
    assert (folder / "output.md").read_text() == "the answer"
    assert "where.txt" in (folder / "diff.patch").read_text()
    assert '"type": "message.assistant.final"' in (folder / "agent-stdout.txt").read_text() \
        or '"type":"message.assistant.final"' in (folder / "agent-stdout.txt").read_text()
    runner = json.loads((folder / "runner.json").read_text())
    assert runner["ephemeral"]["host_id"] == "loopback-node"


async def test_a_gated_call_on_the_worker_waits_for_the_same_inbox(tmp_path: Path,
                                                                  worker) -> None:
    doc = workflow({"a": {"script": [{"shell": "echo approved > out.txt"}, {"say": "ok"}],
                          "permissions": {"cliPermissionsMode": "gated"}}}, executor=RAY)
    engine = create_run(doc, tmp_path / "engine")
    task = asyncio.create_task(engine.run())
    await until(lambda: engine.broker.pending())
    assert not (engine.run_dir / "workspace" / "out.txt").exists()
    pending = engine.broker.pending()[0]
    engine.broker.resolve(pending.approval_id, "approved")
    assert await asyncio.wait_for(task, 30) == "completed"
    engine.close()
    assert (engine.run_dir / "workspace" / "out.txt").read_text() == "approved\n"


async def test_stop_ends_the_agents_processes_on_the_worker(tmp_path: Path, worker) -> None:
    doc = workflow({"a": {"script": [{"shell": "sleep 600 & sleep 600"}, {"hang": True}]}},
                   executor=RAY)
    engine = create_run(doc, tmp_path / "engine")
    approve_everything(engine)
    task = asyncio.create_task(engine.run())
    await until(lambda: of_type(events_of(engine.run_dir), "tool.started"), 30)
    agent_run = engine.state.running_turns[next(iter(engine.state.nodes))]["agentRunId"]
    assert processes_of(agent_run)
    await engine.stop()
    assert await asyncio.wait_for(task, 30) == "stopped"
    engine.close()
    assert processes_of(agent_run) == []
    assert not any((tmp_path / "worker").iterdir())


async def test_an_unreachable_cluster_pauses_the_run_with_the_reason(tmp_path: Path,
                                                                     monkeypatch) -> None:
    install(monkeypatch, tmp_path / "worker", unreachable={RAY["address"]})
    engine = create_run(workflow({"a": {"script": [{"say": "hi"}]}}, executor=RAY),
                        tmp_path / "engine")
    status = await asyncio.wait_for(engine.run(exit_on_pause=True), 30)
    engine.close()
    events = events_of(engine.run_dir)
    assert status == "paused"
    assert of_type(events, "turn.status") == []  # no turn started: the task waits
    assert "cannot be reached" in of_type(events, "run.paused")[0]["reason"]
    assert "cannot be reached" in of_type(events, "bus.message", busType="ERROR")[0]["message"]
    assert [len(items) for items in engine.state.inboxes.values()] == [1]


async def test_a_worker_lost_mid_turn_fails_the_attempt_and_the_retry_runs(
        tmp_path: Path, worker, monkeypatch) -> None:
    from desktop.runtime.worker_host import AgentHost

    real_read = AgentHost.read
    lost: list[AgentHost] = []

    async def read(self, max_bytes: int = 1 << 20, wait: float = 5.0):
        if not lost:
            lost.append(self)
            await self.terminate(0.5)  # the worker's processes go down with it
            raise ConnectionError("node went away")
        return await real_read(self, max_bytes, wait)

    monkeypatch.setattr(AgentHost, "read", read)
    doc = workflow({"a": {"script": [{"say": "hello"}], "limits": {"retries": 1,
                                                                  "retryBackoffSec": 0}}},
                   executor=RAY)
    engine = await run_doc(doc, tmp_path / "engine")
    events = events_of(engine.run_dir)
    assert str(engine.state.status) == "completed"
    crash = of_type(events, "bus.message", busType="RUN_CRASH")
    assert len(crash) == 1 and "the worker was lost" in crash[0]["message"]
    first = crash[0]["agentRunId"]
    stderr = (engine.run_dir / "agents" / first / "agent-stderr.txt").read_text()
    assert "the worker was lost" in stderr  # the reason stays in the run folder too


async def test_a_patch_that_no_longer_applies_fails_the_turn_keeping_both_changes(
        tmp_path: Path, worker) -> None:
    shared = str(tmp_path / "shared-ws")
    writer = {"workspace": shared, "limits": {"retries": 1, "retryBackoffSec": 0}}
    doc = workflow({
        "lead": {"script": [{"handoff": {"to": "one", "message": "go"}},
                            {"handoff": {"to": "two", "message": "go"}}]},
        "one": {**writer, "script": [{"sleep": 0.2}, {"edit": {"path": "x.txt",
                                                               "content": "one\n"}}]},
        "two": {**writer, "script": [{"sleep": 2}, {"edit": {"path": "x.txt",
                                                             "content": "two\n"}}]},
    }, edges=[{"from": "lead", "to": "one"}, {"from": "lead", "to": "two"}], executor=RAY)
    engine = await run_doc(doc, tmp_path / "engine", approve=True)
    events = events_of(engine.run_dir)
    errors = [e for e in of_type(events, "bus.message", busType="ERROR")
              if "no longer applies" in e["message"]]
    assert len(errors) == 1
    folder = engine.run_dir / "agents" / errors[0]["agentRunId"]
    assert "+two" in (folder / "diff.unapplied.patch").read_text()
    assert "+one" in (folder / "diff.concurrent.patch").read_text()
    # the retry starts from the workspace with the other change and succeeds on top
    assert str(engine.state.status) == "completed"
    assert (Path(shared) / "x.txt").read_text() == "two\n"


async def test_resume_ends_the_dead_engines_agent_on_the_cluster_then_reruns_the_turn(
        tmp_path: Path, worker) -> None:
    doc = workflow({"a": {"script": [{"edit": {"path": "a.txt", "content": "a\n"}}]}},
                   executor=RAY)
    engine = create_run(doc, tmp_path / "engine", options=EngineOptions())
    node = next(iter(engine.state.nodes))
    item = engine.state.inboxes[node][0].id
    # what a killed engine leaves: a turn started on the cluster and never ended
    engine.recorder.emit({"type": "turn.status", "status": "started", "turnId": "t1",
                          "agentRunId": "20260101-0000000000-1", "attempt": 1,
                          "inboxItemIds": [item]}, node)
    engine.recorder.emit({"type": "bus.message", "busType": "RUN_START", "message": "x",
                          "agentRunId": "20260101-0000000000-1", "pid": 1234567,
                          "pgid": 1234567}, node)
    engine.recorder.flush()
    engine.close()
    resumed = resume_engine(engine.run_dir)
    assert [(spec.address, run) for spec, run in resumed.remote_orphans] == \
        [(RAY["address"], "20260101-0000000000-1")]
    approve_everything(resumed)
    try:
        assert await asyncio.wait_for(resumed.run(), 60) == "completed"
    finally:
        resumed.close()
    assert worker.ended == ["20260101-0000000000-1"]
    assert (resumed.run_dir / "workspace" / "a.txt").read_text() == "a\n"
