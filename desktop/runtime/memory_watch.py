"""The supervisor's watch on the memory of an agent's whole process tree (Linux /proc).

RLIMIT_DATA stops one process from allocating past the limit; it does not see the tree.
This watch sums the resident memory of the agent and all its descendants (found by
parent links, so a child that started its own session still counts) and kills the
agent's process group and its sandbox once the sum passes the node's ``maxMemoryMb``.
"""

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path

PROC = Path("/proc")
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
INTERVAL = 0.1


def _parents() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def tree(root: int) -> list[int]:
    """``root`` and every live descendant of it."""
    children = _parents()
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def resident_bytes(pids: list[int]) -> int:
    """The summed resident memory of ``pids`` (those still alive)."""
    total = 0
    for pid in pids:
        try:
            total += int((PROC / str(pid) / "statm").read_bytes().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def sample(root: int) -> tuple[list[int], int]:
    """The tree of ``root`` and its summed resident memory."""
    pids = tree(root)
    return pids, resident_bytes(pids)


def supported() -> bool:
    """Whether the tree's memory can be measured here."""
    return (PROC / "self" / "statm").is_file()


async def watch(root: int, pgid: int, limit: int, on_exceeded: Callable[[int], None]) -> None:
    """Until cancelled: when the tree of ``root`` holds more than ``limit`` bytes, call
    ``on_exceeded(bytes)`` and kill the tree with SIGKILL (group, then each member)."""
    if not supported():
        return
    while True:
        pids, used = await asyncio.to_thread(sample, root)
        if used > limit:
            on_exceeded(used)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            return
        await asyncio.sleep(INTERVAL)
