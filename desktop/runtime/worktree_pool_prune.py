"""The worktree pool tidied: what waits there for a repository that is gone, or that no
run has used for :data:`IDLE_DAYS`, is removed, so the pool's disk does not grow with
every repository the user ever ran on.

Each repository's pool folder (desktop/runtime/worktree_pool.py) changes whenever a run
takes a worktree from it, gives one back or adds a spare, so its modification time says
when the repository's runs last used it. A pooled worktree's ``.git`` file names its
repository's git folder; when that folder is gone (the repository deleted or moved), git
cannot remove the worktree, and its folder is simply deleted. A repository still there
is asked to remove its worktrees (``git worktree remove``), so ``git worktree list``
stops showing them, except one the user locked (``git worktree lock``), which is theirs.
A folder whose spare lock another engine holds is left for later.

Tidied at most once a day per data folder (a stamp file in the pool), when a run writes
its spare (desktop/runtime/worktree_spare.py). ``agent-canvas runs pool`` shows each
repository's pool (:func:`survey`) and drops them all on request (:func:`drop_all`).
Blocking: run on a worker thread.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop.runtime import worktree_pool, worktrees
from desktop.runtime.worktree_list import linked_git_dir

IDLE_DAYS = 30
"""A repository's pool unused this long is removed."""
STAMP = ".tidied"
"""The pool's stamp: when it was last tidied."""
EVERY = 24 * 3600.0


def _common_dir(tree: Path) -> Path | None:
    """The git folder of the repository a pooled worktree belongs to, as its ``.git``
    file names it (``<repo>/.git/worktrees/<name>``); None when unreadable."""
    gitdir = linked_git_dir(tree)
    return None if gitdir is None else gitdir.parent.parent


def _entries(folder: Path) -> list[Path]:
    """Every worktree in a repository's pool folder, a spare half made among them."""
    return sorted(p for p in folder.iterdir() if p.is_dir())


def _gone(trees: list[Path]) -> bool:
    """Whether a worktree among ``trees`` names no repository, or one no longer there."""
    return any((c := _common_dir(t)) is None or not c.is_dir() for t in trees)


def _repository(common: Path) -> Path:
    """The repository a git folder belongs to: its checkout for a ``.git`` folder."""
    return common.parent if common.name == ".git" else common


def _disk(folder: Path) -> int:
    """Bytes the files under ``folder`` take on disk (as ``du`` counts them)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:  # removed meanwhile
                continue
    return total


@dataclass(frozen=True)
class PoolFolder:
    """One repository's pooled worktrees."""

    folder: Path
    repository: Path | None
    """None when no worktree there names one."""
    worktrees: int
    disk: int
    """Bytes on disk."""
    last_used: float
    """When a run last took, gave back or added one (seconds since the epoch)."""
    gone: bool
    """The repository is no longer there: the next tidy removes the folder."""


def survey(pool: Path) -> list[PoolFolder]:
    """Each repository's folder in the pool, most recently used first."""
    if not pool.is_dir():
        return []
    found = []
    for folder in (p for p in pool.iterdir() if p.is_dir()):
        try:
            trees = _entries(folder)
            commons = [c for c in map(_common_dir, trees) if c is not None]
            found.append(PoolFolder(
                folder, _repository(commons[0]) if commons else None, len(trees),
                _disk(folder), folder.stat().st_mtime, _gone(trees)))
        except OSError:  # removed meanwhile
            continue
    return sorted(found, key=lambda f: -f.last_used)


def drop_all(pool: Path) -> tuple[list[Path], list[Path]]:
    """Remove every repository's pooled worktrees but those the user locked; the folders
    removed, and those kept (a locked worktree in them, or another engine writing a
    spare there)."""
    return _sweep(pool, lambda _folder: True)


def _sweep(pool: Path, unwanted: Callable[[Path], bool]) -> tuple[list[Path], list[Path]]:
    """Remove each pool folder ``unwanted`` picks, holding its lock; the folders removed,
    and those picked but kept (a worktree the user locked, or the lock held elsewhere)."""
    removed: list[Path] = []
    kept: list[Path] = []
    for folder in sorted(p for p in pool.iterdir() if p.is_dir()) if pool.is_dir() else []:
        try:
            with worktree_pool.held(folder) as mine:
                if not mine:
                    kept.append(folder)
                elif unwanted(folder):
                    (removed if _remove(folder) else kept).append(folder)
        except OSError:  # a folder another engine removed meanwhile, or unreadable
            continue
    return removed, kept


def _remove(folder: Path) -> bool:
    """Remove the folder's worktrees but those the user locked; whether all went."""
    kept = False
    for tree in _entries(folder):
        common = _common_dir(tree)
        if common is None or not common.is_dir():  # no repository left to tell
            shutil.rmtree(tree, ignore_errors=True)
            continue
        with worktrees.repo_lock(common):
            if worktree_pool.is_locked(tree):
                kept = True
            else:
                worktree_pool.drop(common, tree)
    if not kept:
        shutil.rmtree(folder, ignore_errors=True)
    return not kept


def _unwanted(folder: Path, now: float) -> bool:
    trees = _entries(folder)
    return _gone(trees) or not trees or now - folder.stat().st_mtime > IDLE_DAYS * 86400


def tidy(pool: Path, now: float | None = None) -> list[Path]:
    """Remove the pool folders of repositories gone or idle for :data:`IDLE_DAYS` (an
    empty one too); the folders removed."""
    now = time.time() if now is None else now
    return _sweep(pool, lambda folder: _unwanted(folder, now))[0]


def due(pool: Path, now: float | None = None) -> bool:
    """Whether the pool is there and was last tidied a day ago or more (and marks it
    tidied now)."""
    now = time.time() if now is None else now
    stamp = pool / STAMP
    try:
        if now - stamp.stat().st_mtime < EVERY:
            return False
    except FileNotFoundError:
        if not pool.is_dir():
            return False
    stamp.touch()
    os.utime(stamp, (now, now))
    return True


__all__ = ["IDLE_DAYS", "STAMP", "PoolFolder", "drop_all", "due", "survey", "tidy"]
