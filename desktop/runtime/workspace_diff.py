"""The change an agent made in a git workspace, tracked and untracked files alike.

A snapshot is a git tree built from the working folder through a temporary
index (GIT_INDEX_FILE), so the user's index, stash and branches are untouched.
The diff of a turn is ``git diff`` between the tree before and the tree after.

The git commands run on a worker thread: spawning a process from the event loop
stalls it for milliseconds (longer on a busy machine) while other agents stream,
and a worker thread spawns without holding up the loop.
"""

import asyncio
import os
import subprocess
import tempfile
from pathlib import Path

from desktop.runtime import helper_process


def _git(cwd: Path, *args: str, index: str | None = None) -> tuple[int, bytes]:
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    if index:
        env["GIT_INDEX_FILE"] = index
    try:
        proc = helper_process.run(["git", *args], cwd=str(cwd), env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
    except OSError:
        return 127, b""
    return proc.returncode or 0, proc.stdout


def _is_git_workspace(folder: Path) -> bool:
    code, out = _git(folder, "rev-parse", "--is-inside-work-tree")
    return code == 0 and out.strip() == b"true"


def _snapshot(folder: Path) -> str | None:
    with tempfile.TemporaryDirectory(prefix="agent-canvas-index-") as tmp:
        index = str(Path(tmp) / "index")
        code, _ = _git(folder, "rev-parse", "--verify", "-q", "HEAD")
        if code == 0:
            code, _ = _git(folder, "read-tree", "HEAD", index=index)
            if code != 0:
                return None
        code, _ = _git(folder, "add", "-A", "--sparse", "--", ".", index=index)
        if code != 0:
            return None
        code, out = _git(folder, "write-tree", index=index)
        return out.decode().strip() if code == 0 and out.strip() else None


def _diff(folder: Path, before: str, after: str) -> bytes:
    if before == after:
        return b""
    code, out = _git(folder, "diff", "--binary", "--no-color", "--no-ext-diff",
                     "--relative", before, after)
    return out if code == 0 else b""


async def is_git_workspace(folder: Path) -> bool:
    """Whether ``folder`` is inside a git work tree."""
    return await asyncio.to_thread(_is_git_workspace, folder)


async def snapshot(folder: Path) -> str | None:
    """A tree id of the folder's current content (None if git cannot make one)."""
    return await asyncio.to_thread(_snapshot, folder)


async def diff(folder: Path, before: str, after: str) -> bytes:
    """The patch from tree ``before`` to tree ``after``, limited to ``folder``."""
    return await asyncio.to_thread(_diff, folder, before, after)
