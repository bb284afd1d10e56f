"""A spare worktree written into the pool while a run works, so the repository's next run
takes its first node's worktree from the pool instead of writing every file.

The pool (desktop/runtime/worktree_pool.py) used to be filled only by deleting runs, so
a user who keeps their runs paid a whole checkout for every run's first node: the one
worktree nothing could prepare ahead, as it is needed at once. Now, once a run's
worktrees are prepared (desktop/runtime/worktree_prefetch.py), one more is written for
each repository the run works in whose pool is empty: detached at the repository's HEAD
(as a pooled worktree is), made as ``.making-<id>`` (a name the pool does not offer) and
renamed into place only once every file is written.

One spare per repository: it costs the disk of one checkout (bench/RESULTS.md, "disk per
node"). A file lock in the repository's pool folder lets one engine at a time make it,
across processes; the engine holding it removes what an engine killed half way left.
Stopping (the run over, the engine closed) kills the git at work and removes the part
written. Repositories inside the data folder (a run's own scratch repository) get none,
and none is made when ``AGENT_CANVAS_SPARE_WORKTREE=0`` (a repository too large to keep
one more checkout of).

Blocking: run on a worker thread.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from desktop.contract.isolation import SPARE_SWITCH, spares_wanted
from desktop.runtime import index_settle, worktree_pool, worktrees
from desktop.runtime.git_run import Stopper, git, must

SWITCH = SPARE_SWITCH
"""``0``: make no spare."""
MAKING = ".making-"
"""The name a spare has while its files are written."""


def wanted() -> bool:
    """Whether spares are made (see :data:`SWITCH`)."""
    return spares_wanted()


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def make(workspace: Path, pool: Path, stop: Stopper | None = None) -> Path | None:
    """Write one worktree of the repository ``workspace`` is in into ``pool``, unless one
    waits there already, another engine is making one, or the repository is the data
    folder's own; the spare's path, or None. Stopped when ``stop`` stops it."""
    repo = worktrees.repo_of(workspace)
    if repo is None or _inside(repo.common_dir, pool.parent):
        return None
    into = worktree_pool.slot(pool, repo.common_dir)
    into.mkdir(parents=True, exist_ok=True)
    with worktree_pool.held(into) as mine:
        if not mine or worktree_pool.waiting(into):
            return None
        theirs = git(repo.top, "rev-parse", "--verify", "-q", "HEAD^{commit}")
        if not theirs.ok:
            return None  # a repository with no commit yet: nothing to check out
        for left in into.glob(f"{MAKING}*"):  # an engine killed while making one
            with worktrees.repo_lock(repo.common_dir):
                worktree_pool.drop(repo.common_dir, left)
        making = into / f"{MAKING}{uuid.uuid4().hex}"
        try:
            with worktrees.repo_lock(repo.common_dir):
                must(repo.top, "worktree", "add", "--quiet", "--no-checkout", "--detach",
                     str(making), theirs.text)
            must(making, "reset", "--quiet", "--hard", stop=stop, here_only=True)  # unlocked
            index_settle.settle(making, stop)  # else the next run's checkout reads every file
            ready = into / uuid.uuid4().hex
            with worktrees.repo_lock(repo.common_dir):
                must(repo.common_dir, "worktree", "move", str(making), str(ready))
        except BaseException:
            with worktrees.repo_lock(repo.common_dir):
                worktree_pool.drop(repo.common_dir, making)
            raise
        return ready


__all__ = ["MAKING", "SWITCH", "make", "wanted"]
