"""A worktree written ahead of need gets an index git trusts: no file left "racily clean"
(as new as the index), which every later git command would read and hash again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitkit import git, no_git_config, user_repo

from desktop.runtime import worktree_pool, worktree_spare
from desktop.runtime.git_run import Stopped, Stopper
from desktop.runtime.index_settle import settle
from desktop.runtime.worktree_list import linked_git_dir
from desktop.runtime.worktree_prefetch import Job, Prefetch

__all__ = ["no_git_config"]
RUN = "cccc3333-0000-4000-8000-000000000000"


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


async def test_a_worktree_prepared_ahead_of_its_turn_is_trusted(tmp_path: Path,
                                                                no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    run_dir = tmp_path / "data" / "runs" / RUN
    prefetch = Prefetch(run_dir, RUN)
    prefetch.start([Job("b", "b", repo)])
    await prefetch.wait()
    assert prefetch.prepared == ["b"]
    tree = run_dir / "worktrees" / "b"
    assert untrusted(tree) == []
    assert git(tree, "status", "--porcelain") == ""


def test_a_stopped_settle_stops_before_git_runs(tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    tree = _worktree(repo, tmp_path / "tree")
    stopper = Stopper()
    stopper.stop()
    with pytest.raises(Stopped):
        settle(tree, stopper)


def test_a_folder_that_is_no_linked_worktree_is_left_alone(tmp_path: Path,
                                                          no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = (repo / ".git" / "index").stat().st_mtime_ns
    settle(repo)
    settle(tmp_path / "nowhere")
    assert (repo / ".git" / "index").stat().st_mtime_ns == before
