"""An agent run's processes wherever their session went, found by their ``JRUN_ID``.

Ending an agent's process group misses a child that left the group (``setsid``, a
tool that daemonises itself): it lives on, re-parented to init, after the turn, a
stop or a delete. What it cannot shed by leaving the group is its environment: the
agent and everything it starts inherit ``JRUN_ID=<agentRunId>``
(desktop/runtime/agent_env.py), and /proc/PID/environ keeps the environment a
process was started with. So when an agent run ends, every process whose
environment holds exactly that entry is ended too: SIGTERM, a grace period, SIGKILL.

Why a scan and not a subreaper or a cgroup: ``PR_SET_CHILD_SUBREAPER`` is a property
of the whole engine process, so every orphan of every program it runs (git's
helpers, the GUI's) would become its child, to be reaped with ``waitpid(-1)``, which
races asyncio's own child watcher; and telling one agent run's orphans from another's
would still take the marker. A cgroup needs a delegated, writable cgroup tree, which
a desktop session or a container often does not give. The scan needs neither, and
runs once per agent run's end: about 1.5 ms per 100 processes on the machine
(0.7 ms with 92, 16 ms with 1,092; one poll of the group's members costs more).

Safety: only an exact ``JRUN_ID=<id>`` entry counts (agent run ids are unique), the
engine process itself is never a target, and the kernel lets us read the environment
only of processes we may signal. Each process is pinned with a pidfd before its
environment is checked, and signalled through it, so a pid reused in between is never
hit. Each round ends what it found and looks again, for children started meanwhile,
a bounded number of times.

Limits: a process that re-executes itself with a cleared environment carries no
marker; where there is no /proc (macOS, Windows) nothing is found, and the process
group is all that is ended. A bubblewrap sandbox runs the agent in its own pid
namespace (``--unshare-pid``), whose processes the kernel kills together when the
sandbox ends; they are in the host's /proc as well, so the scan finds them too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import time
from collections.abc import Generator
from pathlib import Path

__all__ = ["carries", "end_marked", "end_marked_async", "find_marked", "marker"]

_PROC = Path("/proc")
ROUNDS = 6
"""How many times to look again for processes started while the last ones were ended."""
CLAIM = 512
"""At most this many processes pinned (one pidfd each) per round, so a fork storm
cannot exhaust the engine's file descriptors; the rest wait for the next round."""
RECHECKS = 3
"""How many times to look again, a moment later, when no marked process was found but
one showed no environment at all (mid-exec): at most this many waits of :data:`POLL`."""
KILL_WAIT = 5.0
POLL = 0.02


def marker(agent_run_id: str) -> bytes:
    """The environment entry the agent run's processes carry."""
    return b"JRUN_ID=" + agent_run_id.encode()


def carries(pid: int, entry: bytes) -> bool:
    """Whether process ``pid`` was started with the environment entry ``entry`` exactly."""
    data = _environ(pid)
    return data is not None and _holds(data, entry)


def find_marked(agent_run_id: str) -> list[int]:
    """The live processes (this one excepted) started with the agent run's marker."""
    return _scan(agent_run_id)[0]


def _scan(agent_run_id: str) -> tuple[list[int], list[int]]:
    """The processes carrying the agent run's marker, and those whose environment read
    empty though they are neither zombies nor kernel threads: a process in the middle
    of an ``execve`` (``setsid`` becoming the program it starts) shows none for a
    moment, and may be the agent's."""
    if not agent_run_id or not _PROC.is_dir():
        return [], []
    entry = marker(agent_run_id)
    me = os.getpid()
    try:
        names = os.listdir(_PROC)
    except OSError:
        return [], []
    marked: list[int] = []
    unsure: list[int] = []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        data = _environ(int(name))
        if data is None:
            continue
        if _holds(data, entry):
            marked.append(int(name))
        elif not data and _user_process(int(name)):
            unsure.append(int(name))
    return marked, unsure


def _environ(pid: int) -> bytes | None:
    """The environment process ``pid`` was started with; None when it cannot be read
    (gone, or another user's)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _holds(data: bytes, entry: bytes) -> bool:
    if entry not in data:  # the common case, without splitting anything
        return False
    return b"\0" + entry + b"\0" in b"\0" + data + b"\0"  # a whole entry, not a prefix


def _user_process(pid: int) -> bool:
    """Neither a zombie nor a kernel thread (both have no environment for good)."""
    try:
        fields = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return False
    rest = fields[fields.rfind(b")") + 2:].split()
    # state is the first field after the name, flags the seventh; PF_KTHREAD: 0x00200000
    return len(rest) > 6 and rest[0] != b"Z" and not int(rest[6]) & 0x00200000


class _Target:
    """One process to end, pinned by a pidfd where the kernel has them."""

    __slots__ = ("fd", "pid")

    def __init__(self, pid: int, fd: int | None):
        self.pid, self.fd = pid, fd

    def send(self, sig: int, entry: bytes) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if self.fd is not None:
                signal.pidfd_send_signal(self.fd, sig)
            elif carries(self.pid, entry):  # no pidfd: check again right before
                os.kill(self.pid, sig)

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def _pin(pid: int) -> tuple[bool, int | None]:
    """(still there, its pidfd or None where pidfds cannot be had)."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return True, None
    try:
        return True, opener(pid)
    except ProcessLookupError:
        return False, None
    except OSError:  # no pidfds in this kernel, or no descriptor left: check-then-kill
        return True, None


def _claim(agent_run_id: str, entry: bytes) -> tuple[list[_Target], bool]:
    """The marked processes, pinned; and whether a process was caught mid-exec."""
    targets: list[_Target] = []
    marked, unsure = _scan(agent_run_id)
    for pid in marked[:CLAIM]:
        there, fd = _pin(pid)
        if not there:
            continue
        target = _Target(pid, fd)
        # Checked again once pinned: a pid reused between the scan and the pin names
        # another process, whose environment is read here, not the agent's.
        if not carries(pid, entry):
            target.close()
            continue
        targets.append(target)
    return targets, bool(unsure)


def _alive(targets: list[_Target]) -> list[_Target]:
    pinned = [t for t in targets if t.fd is not None]
    exited: set[int] = set()
    if pinned:
        poller = select.poll()  # a pidfd turns readable once its process has exited
        for target in pinned:
            poller.register(target.fd, select.POLLIN)
        exited = {fd for fd, _ in poller.poll(0)}
    left = []
    for target in targets:
        if target.fd is not None:
            if target.fd not in exited:
                left.append(target)
        elif _pid_alive(target.pid):
            left.append(target)
    return left


def _pid_alive(pid: int) -> bool:
    try:
        data = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return False
    return data[data.rfind(b")") + 2:][:1] != b"Z"


def _ending(agent_run_id: str, grace: float) -> Generator[float, None, int]:
    """End the agent run's marked processes; yields how long to wait between looks,
    returns how many processes were signalled. Shared by the sync and async callers."""
    entry = marker(agent_run_id)
    ended = 0
    waits = 0
    for _ in range(ROUNDS + RECHECKS):
        targets, unsure = _claim(agent_run_id, entry)
        if not targets:
            if unsure and waits < RECHECKS:  # it may be ours once its exec is done
                waits += 1
                yield POLL
                continue
            break
        polite = ended == 0
        ended += len(targets)
        try:
            # The first round asks politely; what shows up later was started while the
            # agent's processes were being ended, and gets no second grace period.
            steps = ((signal.SIGTERM, grace), (signal.SIGKILL, KILL_WAIT)) if polite \
                else ((signal.SIGKILL, KILL_WAIT),)
            left = targets
            for sig, wait_for in steps:
                for target in left:
                    target.send(sig, entry)
                deadline = time.monotonic() + wait_for
                left = _alive(left)
                while left and time.monotonic() < deadline:
                    yield POLL
                    left = _alive(left)
                if not left:
                    break
        finally:
            for target in targets:
                target.close()
    return ended


def end_marked(agent_run_id: str, grace: float) -> int:
    """End every process carrying the agent run's marker (blocking); how many were."""
    steps = _ending(agent_run_id, grace)
    try:
        while True:
            time.sleep(next(steps))
    except StopIteration as done:
        return int(done.value)
    finally:
        steps.close()  # interrupted: its pidfds are closed now, not by the collector


async def end_marked_async(agent_run_id: str, grace: float) -> int:
    """:func:`end_marked` for the event loop: it waits without blocking it."""
    steps = _ending(agent_run_id, grace)
    try:
        while True:
            await asyncio.sleep(next(steps))
    except StopIteration as done:
        return int(done.value)
    finally:
        steps.close()  # cancelled: its pidfds are closed now, not by the collector
