"""An agent's processes that left its process group are ended with it, by their
``JRUN_ID``; a process without exactly that entry is never touched."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.providers.marked import find_marked
from desktop.providers.process import AgentProcess, pid_alive

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")

PY = sys.executable
# Moves to a session of its own, says its pid, and on SIGTERM starts another such
# process before it exits (a child started while the agent's processes are ended).
ESCAPEE = """
import os, signal, subprocess, sys, time
os.setsid()
folder = sys.argv[1]
def respawn(*_):
    if sys.argv[2] == "respawn":
        subprocess.Popen([sys.executable, __file__, folder, "stay"], start_new_session=True)
    os._exit(0)
if sys.argv[2] == "deaf":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
else:
    signal.signal(signal.SIGTERM, respawn)
with open(os.path.join(folder, f"{os.getpid()}.pid"), "w") as fh:
    fh.write(sys.argv[2])
time.sleep(300)
"""


def _env(run_id: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "JRUN_ID": run_id}


@contextlib.contextmanager
def _cleanup(run_id: str, *others: subprocess.Popen) -> Iterator[None]:
    """Kill what a failing test leaves: the run's marked processes and the decoys."""
    try:
        yield
    finally:
        for pid in find_marked(run_id):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for proc in others:
            proc.kill()
            proc.wait()


async def _pids(folder: Path, count: int) -> list[int]:
    async def poll() -> list[int]:
        while len(found := sorted(folder.glob("*.pid"))) < count:
            await asyncio.sleep(0.02)
        return [int(p.stem) for p in found]
    return await asyncio.wait_for(poll(), 30)


def _agent(tmp_path: Path, run_id: str, mode: str, then: str) -> AgentProcess:
    script = tmp_path / "escapee.py"
    script.write_text(ESCAPEE)
    folder = tmp_path / "pids"
    folder.mkdir()
    shell = f"{PY} {script} {folder} {mode} > /dev/null 2>&1 & {then}"
    return AgentProcess(["sh", "-c", shell], cwd=tmp_path, env=_env(run_id), grace=0.5)


async def test_a_setsid_child_ends_when_the_agent_exits(tmp_path: Path) -> None:
    run_id = uuid.uuid4().hex
    proc = _agent(tmp_path, run_id, "stay", f"while [ ! -s {tmp_path}/pids/*.pid ]; "
                                            "do sleep 0.02; done; echo done")
    with _cleanup(run_id):
        await proc.start()
        assert await proc.wait() == 0
        [pid] = await _pids(tmp_path / "pids", 1)
        assert find_marked(run_id) == []
        assert not pid_alive(pid)


async def test_terminate_ends_a_setsid_child_that_ignores_sigterm(tmp_path: Path) -> None:
    run_id = uuid.uuid4().hex
    proc = _agent(tmp_path, run_id, "deaf", "sleep 300")
    with _cleanup(run_id):
        await proc.start()
        [pid] = await _pids(tmp_path / "pids", 1)
        assert os.getsid(pid) == pid != os.getsid(proc.pid or 0)
        await proc.terminate()
        await proc.wait()
        assert find_marked(run_id) == []
        assert not pid_alive(pid)


async def test_a_child_started_while_ending_is_ended_too(tmp_path: Path) -> None:
    run_id = uuid.uuid4().hex
    proc = _agent(tmp_path, run_id, "respawn", "sleep 300")
    with _cleanup(run_id):
        await proc.start()
        await _pids(tmp_path / "pids", 1)
        await proc.terminate()
        await proc.wait()
        assert find_marked(run_id) == []


async def test_only_an_exact_marker_is_ended(tmp_path: Path) -> None:
    run_id = uuid.uuid4().hex
    path = os.environ.get("PATH", "/usr/bin:/bin")
    decoys = [subprocess.Popen(["sleep", "300"], env=env, start_new_session=True)
              for env in ({"PATH": path, "JRUN_ID": run_id + "0"},
                          {"PATH": path, "JRUN_ID": run_id[:-1]},
                          {"PATH": path, "X": f"JRUN_ID={run_id}"},
                          {"PATH": path, "OTHER_JRUN_ID": run_id})]
    proc = _agent(tmp_path, run_id, "stay", "sleep 300")
    with _cleanup(run_id, *decoys):
        await proc.start()
        [pid] = await _pids(tmp_path / "pids", 1)
        await proc.terminate()
        await proc.wait()
        assert not pid_alive(pid)
        assert all(pid_alive(decoy.pid) for decoy in decoys)


def test_a_process_caught_mid_exec_is_looked_for_again_and_ended(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``setsid sleep`` shows no environment for a moment while it becomes ``sleep``: a
    scan that meets only such a process looks again, instead of calling the run clean."""
    from desktop.providers import marked

    run_id = uuid.uuid4().hex
    proc = subprocess.Popen([PY, "-c", "import time; time.sleep(300)"], env=_env(run_id),
                            start_new_session=True)
    with _cleanup(run_id, proc):
        real = marked._scan
        scans = iter([([], [proc.pid])])  # the first look: the process mid-exec

        def scan(agent_run_id: str) -> tuple[list[int], list[int]]:
            return next(scans, None) or real(agent_run_id)

        monkeypatch.setattr(marked, "_scan", scan)
        assert marked.end_marked(run_id, grace=1.0) == 1
        assert proc.wait(timeout=10) != 0 and find_marked(run_id) == []
