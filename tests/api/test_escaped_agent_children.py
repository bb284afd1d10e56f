"""A child an agent moved to a session of its own (``setsid``) ends with the agent run:
when its turn ends, when the run is stopped, when it is force-deleted."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import pytest
from api_helpers import Api, workflow

from desktop.runtime.sandbox import bwrap_problem

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")

ESCAPE = "setsid sleep 555 > /dev/null 2>&1 &"


def run_processes(run_id: str) -> dict[int, bytes]:
    """Live processes (not zombies) started for run ``run_id``: pid -> command line."""
    needle = f"AGENT_CANVAS_RUN_ID={run_id}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0") and stat[stat.rfind(b")") + 2:][:1] != b"Z":
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").strip()
    return found


def escaped(run_id: str, command: bytes) -> list[int]:
    """The run's processes running ``command`` in a session other than the engine's
    agent group would give them (their session leader is themselves)."""
    return [pid for pid, line in run_processes(run_id).items()
            if line == command and os.getsid(pid) == pid]


async def until(predicate, what: str, bound: float = 30.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.02)
    try:
        await asyncio.wait_for(poll(), bound)
    except TimeoutError:
        raise AssertionError(f"not within {bound} s: {what}") from None


@contextlib.contextmanager
def no_leftovers(runs: list[str]):
    """Whatever the test's runs leave behind is killed after it, pass or fail."""
    try:
        yield
    finally:
        for run_id in runs:
            for pid in run_processes(run_id):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)


async def test_a_setsid_child_ends_with_the_turn(api: Api) -> None:
    runs: list[str] = []
    with no_leftovers(runs):
        flow = workflow({"a": {"script": [{"shell": ESCAPE}, {"say": "done"}]}})
        run_id = (await api.start(flow))["id"]
        runs.append(run_id)
        state = await api.finished(run_id)
        assert state["status"] == "completed"
        assert run_processes(run_id) == {}


@pytest.mark.parametrize("how", ["stop", "force delete", "stop sandboxed"])
async def test_a_setsid_child_ends_with_a_stop_or_a_forced_delete(api: Api, how: str) -> None:
    if how.endswith("sandboxed") and bwrap_problem() is not None:
        pytest.skip(f"bubblewrap cannot run here: {bwrap_problem()}")
    runs: list[str] = []
    with no_leftovers(runs):
        node = {"script": [{"shell": "setsid sleep 777 > /dev/null 2>&1 &"},
                           {"shell": "sleep 333"}, {"say": "done"}]}
        if how.endswith("sandboxed"):  # its own pid namespace: another way out, same end
            node["sandbox"] = {"backend": "process"}
        flow = workflow({"a": node})
        run_id = (await api.start(flow))["id"]
        runs.append(run_id)
        await until(lambda: escaped(run_id, b"sleep 777") and any(
            line == b"sleep 333" for line in run_processes(run_id).values()),
            "the agent ran both steps")
        if how.startswith("stop"):
            await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
        else:
            await api.json("DELETE", f"/api/runs/{run_id}?force=true", 200)
        assert run_processes(run_id) == {}
        await api.healthy()
