"""A repository's worktrees as ``git worktree list --porcelain`` gives them: where each
is, its branch, and whether the user locked it; the git folder of one, read from its
``.git`` file; and whether a folder git lists is a worktree still. Read by the pool (a
locked worktree is not taken) and by deleting a run (a locked one is not removed).

A folder git lists is no worktree any more once its ``.git`` file is gone (or names no
repository): git run there would take the repository the folder lies inside, which
for a data folder in a home folder kept in git is the user's own. Such a folder is
never looked at nor cleaned with git (:func:`not_a_worktree`).

Blocking: run it on a worker thread.
"""

from __future__ import annotations

import os
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


def not_a_worktree(folder: Path) -> str | None:
    """Why the folder of a worktree is not one any more, in words; None when it still
    is: git, kept to the folder (``here_only``), finds the folder its own top."""
    if not os.path.lexists(folder / ".git"):
        return "its .git file is gone; it is no longer a worktree"
    top = git(folder, "rev-parse", "--path-format=absolute", "--show-toplevel",
              here_only=True)
    if top.ok and Path(top.text).resolve() == folder.resolve():
        return None
    return "its .git file names no repository git can open; it is no longer a worktree"


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


__all__ = ["Worktree", "linked_git_dir", "not_a_worktree", "worktrees"]
