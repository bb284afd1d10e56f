"""An agent and everything it started die with its engine, however the engine ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
import yaml

from desktop.providers.pgroup import group_members, process_start
from desktop.providers.reaper import GroupReaper

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="Linux process groups")
DEADLINE = 30.0  # a wait loop's bound, not a speed target
START_DEADLINE = 120.0  # a Python engine and a sandboxed shell starting on a loaded machine


def _wait(condition, deadline: float = DEADLINE) -> bool:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _workflow(tmp: Path) -> Path:
    doc = {"name": "long turn", "task": "wait",
           "nodes": [{"id": "a", "label": "A", "entry": True}],
           # a shell step whose child (sleep) is a grandchild of the engine
           "nodeConfigs": {"a": {"script": [{"say": "starting"}, {"shell": "sleep 300"}]}}}
    path = tmp / "long.flow.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _agent_group(events: Path) -> int | None:
    if not events.is_file():
        return None
    pgid, shell = None, False
    for line in events.read_bytes().splitlines():
        event = orjson.loads(line)
        if event.get("busType") == "RUN_START":
            pgid = event["pgid"]
        shell = shell or event.get("type") == "tool.started"
    return pgid if shell else None


@pytest.mark.parametrize("attempt", range(3))
def test_kill_9_of_the_engine_ends_the_agent_and_its_children(tmp_path: Path,
                                                               attempt: int) -> None:
    data = tmp_path / "data"
    engine = subprocess.Popen(
        [sys.executable, "-m", "desktop", "run", str(_workflow(tmp_path)), "--data-dir",
         str(data)], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    pgid = None
    try:
        def started() -> bool:
            nonlocal pgid
            runs = list((data / "runs").glob("*/events.jsonl")) if (data / "runs").is_dir() \
                else []
            pgid = _agent_group(runs[0]) if runs else None
            return pgid is not None and len(group_members(pgid)) >= 2  # agent + sleep
        assert _wait(started, START_DEADLINE), "the agent's shell step never started"
        members = group_members(pgid)
        engine.send_signal(signal.SIGKILL)
        engine.wait(timeout=10)
        assert _wait(lambda: not group_members(pgid)), \
            f"still alive after the engine died: {group_members(pgid)} (were {members})"
    finally:
        if engine.poll() is None:
            engine.kill()
        if pgid and group_members(pgid):
            os.killpg(pgid, signal.SIGKILL)


def test_the_watchdog_ends_registered_groups_when_the_engine_side_closes() -> None:
    reaper = GroupReaper()
    child = subprocess.Popen(["sh", "-c", "sleep 300 & wait"], start_new_session=True)
    try:
        assert _wait(lambda: len(group_members(child.pid)) == 2)
        reaper.watch(child.pid)
        watchdog = reaper._proc
        assert watchdog is not None
        os.close(reaper._fd)  # what the kernel does when the engine dies
        reaper._fd = None
        assert _wait(lambda: not group_members(child.pid))
        assert watchdog.wait(timeout=DEADLINE) == 0
    finally:
        child.kill()
        child.wait()


def test_a_clean_close_and_forgotten_groups_end_nothing() -> None:
    reaper = GroupReaper()
    child = subprocess.Popen(["sleep", "300"], start_new_session=True)
    other = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        reaper.watch(child.pid)
        reaper.watch(other.pid)
        reaper.forget(other.pid)
        watchdog = reaper._proc
        reaper.close()
        assert watchdog is not None and watchdog.returncode == 0
        assert child.poll() is None and other.poll() is None
    finally:
        for proc in (child, other):
            proc.kill()
            proc.wait()


def test_a_reused_pid_is_never_ended(tmp_path: Path) -> None:
    # The recorded start time does not match the process that now has the pid.
    reaper = GroupReaper()
    child = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        start = process_start(child.pid)
        assert start is not None
        reaper._groups[child.pid] = start - 1
        reaper._start()
        os.close(reaper._fd)
        reaper._fd = None
        assert reaper._proc.wait(timeout=DEADLINE) == 0
        assert child.poll() is None
    finally:
        child.kill()
        child.wait()


def test_a_process_exiting_with_a_group_registered_ends_it_and_waits_for_its_watchdog(
) -> None:
    code = ("import os\n"
            "from desktop.providers.reaper import REAPER\n"
            "pid = os.posix_spawnp('sleep', ['sleep', '300'], os.environ, setsid=True)\n"
            "REAPER.watch(pid)\n"
            "print(pid, flush=True)\n")
    done = subprocess.run([sys.executable, "-X", "dev", "-c", code], cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
                          text=True, timeout=120, check=True)
    pid = int(done.stdout.split()[0])
    try:
        assert "ResourceWarning" not in done.stderr, done.stderr
        assert not group_members(pid), "the watchdog was not waited for at exit"
    finally:
        if group_members(pid):
            os.killpg(pid, signal.SIGKILL)
