"""Crash safety: kill -9 the engine process at random points, then resume from the log."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from engine_helpers import events_of, of_type, resume_to_end, unconsumed_items, workflow

from desktop.graph.io import dumps_workflow
from desktop.providers.process import group_members
from desktop.runtime.recovery import resume_engine
from desktop.store.run_info import read_run_info
from desktop.views.runs import open_run

ROOT = Path(__file__).resolve().parents[2]
CHAIN = workflow(
    {k: {"script": [{"say": f"{k} starts"}, {"sleep": 0.05}, {"say": f"{k} works"},
                    {"sleep": 0.05}, {"say": f"{k} is done"}]} for k in ("a", "b", "c", "d")},
    [{"from": "a", "to": "b"}, {"from": "a", "to": "c"}, {"from": "b", "to": "d"},
     {"from": "c", "to": "d"}])


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **extra)
    env.pop("AGENT_CANVAS_DATA_DIR", None)
    return env


def _start(flow: Path, data: Path, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "desktop", "run", str(flow), "--data-dir", str(data), "--json"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=_env(**env), cwd=ROOT)


def _read_until(proc: subprocess.Popen, stop) -> list[dict]:
    seen: list[dict] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.append(orjson.loads(line))
        if stop(seen):
            break
    return seen


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert proc.stdout is not None
    proc.stdout.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_kill_9_at_a_random_point_then_resume_loses_nothing(tmp_path: Path,
                                                                  seed: int) -> None:
    flow = tmp_path / "chain.flow.yaml"
    flow.write_text(dumps_workflow(CHAIN))
    limit = random.Random(seed).randint(4, 90)
    proc = _start(flow, tmp_path / "data")
    seen = _read_until(proc, lambda s: len(s) >= limit)
    _kill(proc)
    run_dir = tmp_path / "data" / "runs" / seen[0]["runId"]
    logged = {e["id"] for e in events_of(run_dir)}
    assert {e["id"] for e in seen} <= logged, "an acknowledged event was lost"
    before = open_run(run_dir)
    if before.status not in ("completed",):
        assert before.interrupted
    if before.status == "completed":
        return
    engine = await resume_to_end(run_dir)
    events = events_of(run_dir)
    assert engine.state.status == "completed"
    assert unconsumed_items(events) == set(), "an inbox item was lost"
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(set(seqs))
    interrupted = of_type(events, "turn.status", status="interrupted")
    for cut in interrupted:
        restarted = next(e for e in of_type(events, "turn.status", status="started")
                         if e["nodeId"] == cut["nodeId"] and e["seq"] > cut["seq"])
        assert restarted["restart"] is True
        if cut.get("agentRunId"):
            info = read_run_info(run_dir / "agents" / restarted["agentRunId"] / "run-info.yaml")
            assert info.previous_run_id == cut["agentRunId"]


def _kill_watchdog(engine_pid: int) -> None:
    """Kill the engine's watchdog (what only the case of both dying at once leaves)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(b")") + 2:].split()[1])
        if ppid == engine_pid and b"watchdog.py" in cmdline:
            os.kill(int(entry.name), signal.SIGKILL)


@pytest.mark.parametrize("script", [
    [{"say": "sleeping"}, {"sleep": 60}],
    # the agent (the group's leader) is gone, its shell step's child lives on
    [{"say": "sleeping"}, {"shell": "(sleep 60 > /dev/null 2>&1 &)"}, {"sleep": 0.5}],
])
async def test_resume_ends_the_orphaned_agent_process(tmp_path: Path, script: list) -> None:
    doc = workflow({"a": {"script": script}})
    flow = tmp_path / "sleepy.flow.yaml"
    flow.write_text(dumps_workflow(doc))
    proc = _start(flow, tmp_path / "data")
    # with a shell step, kill once it has run: its child is then in the group for certain
    # (killed earlier, on a busy machine, the agent dies of the closed pipe before it)
    last = "tool.completed" if any("shell" in step for step in script) else \
        "message.assistant.final"
    seen = _read_until(proc, lambda s: s[-1].get("type") == last)
    _kill_watchdog(proc.pid)
    _kill(proc)
    run_dir = tmp_path / "data" / "runs" / seen[0]["runId"]
    info = read_run_info(next(run_dir.glob("agents/*/run-info.yaml")))
    leader_lives = len(script) == 2

    def settled() -> bool:
        members = group_members(info.pgid)
        return bool(members) and (info.pid in members) == leader_lives

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not settled():
        await asyncio.sleep(0.05)
    assert settled(), "the agent's group outlived engine and watchdog"
    engine = resume_engine(run_dir)
    try:
        assert group_members(info.pgid) == []
        state = engine.state
        assert state.running_turns == {} and state.status == "running"
        assert all(item.model_extra.get("restart") for item in state.inboxes[
            engine.find_node("a")])
    finally:
        engine.close()


async def test_resume_denies_stale_approvals(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"shell": "echo hi"}],
                          "permissions": {"cliPermissionsMode": "gated"}}})
    flow = tmp_path / "gated.flow.yaml"
    flow.write_text(dumps_workflow(doc))
    proc = _start(flow, tmp_path / "data")
    seen = _read_until(proc, lambda s: s[-1]["type"] == "approval.requested")
    _kill(proc)
    run_dir = tmp_path / "data" / "runs" / seen[0]["runId"]
    engine = resume_engine(run_dir)
    engine.close()
    resolved = of_type(events_of(run_dir), "approval.resolved")
    assert resolved[0]["approvalId"] == seen[-1]["approvalId"]
    assert resolved[0]["resolution"]["reason"] == "engine restarted"
    assert engine.state.pending_approvals == {}


def test_no_secret_reaches_the_run_folder(tmp_path: Path) -> None:
    secrets = {"CANARY_API_KEY": "canary-7f3a9c1e5b", "ANTHROPIC_API_KEY": "canary-sk-ant-42x9"}
    doc = workflow({"a": {"script": [{"shell": "env; echo $CANARY_API_KEY $ANTHROPIC_API_KEY"},
                                     {"say": "checked the environment"}]}})
    flow = tmp_path / "env.flow.yaml"
    flow.write_text(dumps_workflow(doc))
    result = subprocess.run(
        [sys.executable, "-m", "desktop", "run", str(flow), "--data-dir", str(tmp_path / "d"),
         "--json"], capture_output=True, stdin=subprocess.DEVNULL, env=_env(**secrets),
        cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    files = [p for p in (tmp_path / "d").rglob("*") if p.is_file()]
    assert any(p.name == "agent-stdout.txt" for p in files)
    for path in files:
        data = path.read_bytes()
        for value in secrets.values():
            assert value.encode() not in data, f"{value} leaked into {path}"
    for value in secrets.values():
        assert value.encode() not in result.stdout
    infos = [str(p) for p in files if p.name == "run-info.yaml"]
    check = subprocess.run([sys.executable, "-m", "desktop", "check", "run-info", *infos],
                           capture_output=True, env=_env(), cwd=ROOT, timeout=60)
    assert check.returncode == 0, check.stdout.decode() + check.stderr.decode()
