"""Stop and delete at every moment of a run's start: many gated runs started at once,
each stopped (or force-deleted) after a random delay of 0-300 ms. Every agent process is
gone when the call returns, the log is whole (a gated call asked for is answered), and
the call never waits for the turn to time out."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import orjson
from api_helpers import Api, gated_shell

RUNS = 12


def agent_processes(run_id: str) -> list[int]:
    """Live processes (not zombies) started for run ``run_id``."""
    needle = f"AGENT_CANVAS_RUN_ID={run_id}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0") and stat[stat.rfind(b")") + 2:][:1] != b"Z":
            found.append(int(entry.name))
    return found


def events(api: Api, run_id: str) -> list[dict]:
    log = api.data / "runs" / run_id / "events.jsonl"
    return [orjson.loads(line) for line in log.read_bytes().splitlines() if line.strip()]


async def stop_soon(api: Api, delay: float, delete: bool) -> tuple[str, bool]:
    run_id = (await api.start(gated_shell("sleep 60")))["id"]
    await asyncio.sleep(delay)
    if delete:
        await api.json("DELETE", f"/api/runs/{run_id}?force=true", 200)
    else:
        await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    return run_id, delete


async def test_runs_stopped_or_deleted_as_they_start_leave_no_agent_and_a_whole_log(
        api: Api) -> None:
    rng = random.Random(20261125)
    plan = [(rng.uniform(0.0, 0.3) if i % 4 else 0.0, i % 3 == 0) for i in range(RUNS)]
    done = await asyncio.gather(*(stop_soon(api, delay, delete) for delay, delete in plan))
    for run_id, deleted in done:
        assert agent_processes(run_id) == [], run_id
        if deleted:
            assert not (api.data / "runs" / run_id).exists()
            continue
        log = events(api, run_id)
        assert log[-1]["type"] == "run.stopped"
        asked = {e["approvalId"] for e in log if e["type"] == "approval.requested"}
        answered = {e["approvalId"] for e in log if e["type"] == "approval.resolved"}
        assert asked == answered, run_id
        started = [e["turnId"] for e in log if e["type"] == "turn.status"
                   and e["status"] == "started"]
        ended = [e["turnId"] for e in log if e["type"] == "turn.status"
                 and e["status"] != "started"]
        assert sorted(started) == sorted(ended), run_id
    await api.healthy()
