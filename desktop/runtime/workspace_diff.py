"""The change an agent made in a git workspace, tracked and untracked files alike.

A snapshot is a git tree built from the working folder through a temporary
index (GIT_INDEX_FILE), so the user's index, stash and branches are untouched.
The diff of a turn is ``git diff`` between the tree before and the tree after.
"""

import asyncio
import os
import tempfile
from pathlib import Path


async def _git(cwd: Path, *args: str, index: str | None = None) -> tuple[int, bytes]:
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    if index:
        env["GIT_INDEX_FILE"] = index
    try:
        proc = await asyncio.create_subprocess_exec(
            "git", *args, cwd=str(cwd), env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return 127, b""
    out, _ = await proc.communicate()
    return proc.returncode or 0, out


async def is_git_workspace(folder: Path) -> bool:
    code, out = await _git(folder, "rev-parse", "--is-inside-work-tree")
    return code == 0 and out.strip() == b"true"


async def snapshot(folder: Path) -> str | None:
    """A tree id of the folder's current content (None if git cannot make one)."""
    with tempfile.TemporaryDirectory(prefix="agent-canvas-index-") as tmp:
        index = str(Path(tmp) / "index")
        code, _ = await _git(folder, "rev-parse", "--verify", "-q", "HEAD")
        if code == 0:
            code, _ = await _git(folder, "read-tree", "HEAD", index=index)
            if code != 0:
                return None
        code, _ = await _git(folder, "add", "-A", "--", ".", index=index)
        if code != 0:
            return None
        code, out = await _git(folder, "write-tree", index=index)
        return out.decode().strip() if code == 0 and out.strip() else None


async def diff(folder: Path, before: str, after: str) -> bytes:
    """The patch from tree ``before`` to tree ``after``, limited to ``folder``."""
    if before == after:
        return b""
    code, out = await _git(folder, "diff", "--binary", "--no-color", "--no-ext-diff",
                           "--relative", before, after)
    return out if code == 0 else b""
