"""A worktree written ahead of need gets an index git trusts: no file left "racily clean"
(as new as the index), which every later git command would read and hash again."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from gitkit import git, no_git_config, user_repo

from desktop.runtime import worktree_pool, worktree_spare
from desktop.runtime.git_run import Stopped, Stopper
from desktop.runtime.index_settle import settle
from desktop.runtime.worktree_list import linked_git_dir

__all__ = ["no_git_config"]


def _index(worktree: Path) -> Path:
    gitdir = linked_git_dir(worktree)
    assert gitdir is not None
    return gitdir / "index"


def untrusted(worktree: Path) -> list[str]:
    """The index's entries git would read again: as new as the index (to the second) or
    smudged (size 0 kept for a file that is not empty)."""
    written = int(_index(worktree).stat().st_mtime)
    found: list[str] = []
    name = ""
    for line in git(worktree, "ls-files", "--debug").splitlines():
        if not line.startswith(" "):
            name = line
        elif line.strip().startswith("mtime:"):
            seconds = int(line.split(":")[1])
            if seconds >= written:
                found.append(name)
        elif line.strip().startswith("size:"):
            size = int(line.split()[1])
            if size == 0 and (worktree / name).stat().st_size and name not in found:
                found.append(name)
    return found


def _worktree(repo: Path, at: Path) -> Path:
    git(repo, "worktree", "add", "--quiet", "--detach", str(at), "HEAD")
    return at


def test_files_as_new_as_the_index_are_checked_once_and_trusted(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    tree = _worktree(repo, tmp_path / "tree")
    written = _index(tree).stat().st_mtime
    for name in git(tree, "ls-files").splitlines():  # written in the index's own second
        os.utime(tree / name, (written, written))
    assert all(int((tree / n).stat().st_mtime) >= int(written)
               for n in git(tree, "ls-files").splitlines())
    settle(tree)
    assert untrusted(tree) == []
    assert git(tree, "status", "--porcelain") == ""


def test_a_spare_is_trusted_by_the_next_checkout(tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    spare = worktree_spare.make(repo, tmp_path / "data" / worktree_pool.POOL)
    assert spare is not None
    assert untrusted(spare) == []


def test_stopping_ends_the_wait_at_once(tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    tree = _worktree(repo, tmp_path / "tree")
    later = time.time() + 3600  # an index written "an hour from now": a long wait
    os.utime(_index(tree), (later, later))
    stopper = Stopper()
    outcome: list[BaseException] = []

    def settling() -> None:
        try:
            settle(tree, stopper)
        except BaseException as exc:  # what the worker thread ended with
            outcome.append(exc)

    worker = threading.Thread(target=settling)
    worker.start()
    stopper.stop()
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], Stopped)


def test_a_folder_that_is_no_linked_worktree_is_left_alone(tmp_path: Path,
                                                          no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = (repo / ".git" / "index").stat().st_mtime_ns
    settle(repo)
    settle(tmp_path / "nowhere")
    assert (repo / ".git" / "index").stat().st_mtime_ns == before
