"""A case's workspace: a fresh copy of the suite's folder, made a git repository, and the
change the agents made to it (the case's diff)."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from desktop.runtime import workspace_diff

_GIT_ID = ["-c", "user.name=Agent Canvas", "-c", "user.email=eval@agent-canvas.invalid",
           "-c", "commit.gpgsign=false"]
_IGNORED = "__pycache__/\n*.pyc\n.pytest_cache/\n"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""git's id of the empty tree: the start of a case without a workspace folder."""


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    return subprocess.run(["git", *_GIT_ID, *args], cwd=str(cwd), env=env, check=False,
                          stdin=subprocess.DEVNULL, capture_output=True)


def prepare(target: Path, source: Path | None) -> str | None:
    """Copy ``source`` (if any) to ``target``, commit it, and return its tree id (None when
    git is unavailable; the case then has no diff)."""
    if source is not None:
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    target.mkdir(parents=True, exist_ok=True)
    try:
        if not (target / ".git").exists() and _git(target, "init", "-q").returncode != 0:
            return None
        exclude = target / ".git" / "info" / "exclude"
        if exclude.parent.is_dir():
            exclude.write_text(_IGNORED)
        if source is None:
            return EMPTY_TREE  # nothing to commit: every file the agents make is new
        _git(target, "add", "-A")
        _git(target, "commit", "-q", "--allow-empty", "--no-verify", "-m", "case workspace")
        tree = _git(target, "rev-parse", "HEAD^{tree}")
    except OSError:
        return None
    return tree.stdout.decode().strip() or None if tree.returncode == 0 else None


@dataclass
class DiffStats:
    files: int = 0
    insertions: int = 0
    deletions: int = 0

    @property
    def lines(self) -> int:
        return self.insertions + self.deletions


def final_diff(workspace: Path, before: str | None) -> bytes:
    """Everything the case's agents changed in ``workspace`` (tracked and new files)."""
    if before is None or not workspace.is_dir():
        return b""
    after = workspace_diff._snapshot(workspace)
    return workspace_diff._diff(workspace, before, after) if after else b""


def diff_stats(patch: bytes) -> DiffStats:
    """Files, added and removed lines of a unified diff."""
    stats = DiffStats()
    for line in patch.split(b"\n"):
        if line.startswith(b"diff --git "):
            stats.files += 1
        elif line.startswith(b"+") and not line.startswith(b"+++"):
            stats.insertions += 1
        elif line.startswith(b"-") and not line.startswith(b"---"):
            stats.deletions += 1
    return stats
