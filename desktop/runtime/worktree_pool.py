"""Worktrees kept for the next run: a deleted run's node worktrees wait, cleaned, in a
pool beside the runs folder, and a new node takes one instead of writing every file again.

Making a worktree checks every file of the repository out, which costs what a clone's
checkout costs (bench/bench_worktree.py). A pooled worktree is moved into the run folder
(``git worktree move``, a rename) and switched to the node's branch at the run's base
with ``git checkout --force``, which rewrites only the files that differ and knows the
others from the index's cached stats. The node then sees what a new worktree would show:
the base commit's files, nothing untracked, nothing ignored.

Giving one back, when its run is deleted: its changes, untracked and ignored files are
discarded (``reset --hard``, ``clean -ffdx``), HEAD is detached at the repository's own
HEAD (so no commit of the deleted run stays reachable through it), and it is moved to
``<data>/worktree-pool/<repository key>/<name>``. At most :data:`KEEP` wait per
repository; the others are removed as before. The user's working tree, index, HEAD and
branches are not touched. To drop the pool, delete its folder and run ``git worktree
prune`` in the repository.

Blocking: run on a worker thread, holding the repository's lock (worktrees.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

from desktop.runtime.git_run import git
from desktop.runtime.worktree_list import linked_git_dir, worktrees
from desktop.store.runs import try_lock

POOL = "worktree-pool"
"""The data folder's folder of pooled worktrees."""
KEEP = 4
"""Worktrees kept per repository: a run's usual width, without letting disk grow."""
LOCK = ".spare.lock"
"""A repository's pool folder's lock: held while a spare is made or the folder tidied."""


def pool_dir(run_dir: Path) -> Path:
    """The pool beside the runs folder that ``run_dir`` is in (``<data>/worktree-pool``)."""
    return run_dir.absolute().parent.parent / POOL


def slot(pool: Path, common_dir: Path) -> Path:
    """The pool's folder for one repository, named by its git folder."""
    key = hashlib.sha256(str(common_dir.resolve()).encode()).hexdigest()[:16]
    return pool / key


def waiting(folder: Path) -> list[Path]:
    """The worktrees waiting in one repository's pool folder (a spare being made, named
    with a leading dot, is not one yet)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


@contextlib.contextmanager
def held(folder: Path) -> Iterator[bool]:
    """Whether this caller holds ``folder``'s :data:`LOCK` (never waits for it), across
    processes."""
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        yield try_lock(fd, exclusive=True)
    finally:
        os.close(fd)  # closing releases the lock


def locked(common_dir: Path) -> set[Path]:
    """The repository's worktrees the user locked (``git worktree lock``)."""
    return {tree.path.resolve() for tree in worktrees(common_dir) if tree.lock is not None}


def is_locked(entry: Path) -> bool:
    """Whether the user locked the pooled worktree at ``entry``: its git folder holds
    ``locked``, where ``git worktree lock`` writes the reason. Read as a file: taking a
    worktree from the pool asks once per run's node."""
    gitdir = linked_git_dir(entry)
    return gitdir is not None and (gitdir / "locked").exists()


def drop(common_dir: Path, path: Path) -> None:
    """Remove a worktree git may or may not still know (a broken pool entry)."""
    git(common_dir, "worktree", "remove", "--force", "--force", str(path))
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)
    git(common_dir, "worktree", "prune")


def take(common_dir: Path, pool: Path, path: Path, branch: str, base: str,
         branch_exists: bool) -> bool:
    """Move a pooled worktree of the repository to ``path`` and check out ``branch`` there
    (made at ``base`` when it does not exist yet); False when none could be taken."""
    for entry in waiting(slot(pool, common_dir)):
        if is_locked(entry):  # the user's to keep: not taken, not dropped
            continue
        if not git(common_dir, "worktree", "move", str(entry), str(path)).ok:
            drop(common_dir, entry)
            continue
        switch = ["checkout", "-q", "--force", branch] if branch_exists else \
            ["checkout", "-q", "--force", "-b", branch, base]
        # kept to the worktree: a .git gone would have them force a checkout and a clean
        # of a repository the folder lies in
        if git(path, *switch, here_only=True).ok and \
                git(path, "clean", "-ffdxq", here_only=True).ok:
            return True
        drop(common_dir, path)
    return False


def give(common_dir: Path, pool: Path, path: Path) -> bool:
    """Clean the worktree at ``path`` and move it into the pool; False when the pool is
    full or git refused (the caller removes it then)."""
    into = slot(pool, common_dir)
    theirs = git(common_dir, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    if len(waiting(into)) >= KEEP or not theirs.ok:
        return False
    for step in (["reset", "-q", "--hard"],  # also ends a merge left open
                 ["checkout", "-q", "--force", "--detach", theirs.text],
                 ["clean", "-ffdxq"]):
        if not git(path, *step, here_only=True).ok:
            return False
    into.mkdir(parents=True, exist_ok=True)
    return git(common_dir, "worktree", "move", str(path), str(into / uuid.uuid4().hex)).ok


__all__ = ["KEEP", "LOCK", "POOL", "drop", "give", "held", "is_locked", "locked", "pool_dir",
           "slot", "take", "waiting"]
