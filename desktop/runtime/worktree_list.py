"""A repository's worktrees as ``git worktree list --porcelain`` gives them: where each
is, its branch, and whether the user locked it; and the git folder of one, read from its
``.git`` file. Read by the pool (a locked worktree is
not taken) and by deleting a run (a locked one is not removed).

Blocking: run it on a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from desktop.runtime.git_run import git


@dataclass(frozen=True)
class Worktree:
    """One worktree of a repository as ``git worktree list --porcelain`` gives it."""

    path: Path
    branch: str | None
    """The checked-out branch's ref (None: detached)."""
    lock: str | None
    """Why the user locked it ("" when they gave no reason); None: not locked."""


def linked_git_dir(folder: Path) -> Path | None:
    """The git folder a linked worktree's ``.git`` file names (``gitdir: ...``, made
    absolute), read as a file, not asked of git; None when ``.git`` is no such file (a
    repository's own checkout has a ``.git`` folder) or cannot be read."""
    try:
        pointer = (folder / ".git").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if not pointer.startswith("gitdir:"):
        return None
    gitdir = Path(pointer.removeprefix("gitdir:").strip())
    return gitdir if gitdir.is_absolute() else folder / gitdir


def worktrees(common: Path) -> list[Worktree]:
    """Every worktree of the repository whose git folder is ``common``."""
    listed = git(common, "worktree", "list", "--porcelain")
    out: list[Worktree] = []
    path: Path | None = None
    branch: str | None = None
    lock: str | None = None
    for line in [*listed.out.decode("utf-8", "replace").splitlines(), ""]:
        if line.startswith("worktree "):
            path, branch, lock = Path(line[len("worktree "):]), None, None
        elif line.startswith("branch "):
            branch = line[len("branch "):]
        elif line == "locked" or line.startswith("locked "):
            lock = line[len("locked "):]
        elif not line and path is not None:  # a blank line ends each worktree's record
            out.append(Worktree(path, branch, lock))
            path = None
    return out


__all__ = ["Worktree", "linked_git_dir", "worktrees"]
