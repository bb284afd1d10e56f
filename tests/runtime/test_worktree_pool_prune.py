"""The worktree pool tidied: a repository gone, or unused for a month, leaves nothing in the
pool (and nothing in its own `git worktree list`); a repository in use keeps its pooled
worktrees, and one the user locked is theirs. Tidied at most once a day."""

from __future__ import annotations

import os
import shlex
import shutil
import time
from pathlib import Path

import pytest
from engine_helpers import run_doc, workflow
from gitkit import fingerprint, git, no_git_config, user_repo

from desktop.runtime import worktree_pool, worktree_pool_prune, worktree_spare

__all__ = ["no_git_config"]

DAY = 86400.0


def _pooled(repo: Path, pool: Path) -> Path:
    spare = worktree_spare.make(repo, pool)
    assert spare is not None
    return spare


def _listed(repo: Path) -> list[str]:
    return [line.removeprefix("worktree ") for line in
            git(repo, "worktree", "list", "--porcelain").splitlines()
            if line.startswith("worktree ")]


def _age(folder: Path, days: float) -> None:
    then = time.time() - days * DAY
    os.utime(folder, (then, then))


def test_a_repository_in_use_keeps_its_pool_and_one_gone_or_idle_leaves_nothing(
        tmp_path: Path, no_git_config) -> None:
    pool = tmp_path / "data" / worktree_pool.POOL
    used, idle, gone = (user_repo(tmp_path / name) for name in ("used", "idle", "gone"))
    before = fingerprint(idle)
    trees = {repo: _pooled(repo, pool) for repo in (used, idle, gone)}
    shutil.rmtree(gone)  # the user deleted that project
    _age(trees[idle].parent, worktree_pool_prune.IDLE_DAYS + 1)
    _age(trees[used].parent, worktree_pool_prune.IDLE_DAYS - 1)

    removed = worktree_pool_prune.tidy(pool)

    assert sorted(removed) == sorted([trees[idle].parent, trees[gone].parent])
    assert not trees[idle].parent.exists() and not trees[gone].parent.exists()
    assert worktree_pool.waiting(trees[used].parent) == [trees[used]]
    assert _listed(idle) == [str(idle)]  # git no longer lists the removed worktree
    assert str(trees[used]) in _listed(used)
    assert fingerprint(idle) == before  # the user's own work untouched
    assert worktree_pool_prune.tidy(pool) == []


def test_an_idle_pool_keeps_a_worktree_the_user_locked(tmp_path: Path,
                                                       no_git_config) -> None:
    pool = tmp_path / "data" / worktree_pool.POOL
    repo = user_repo(tmp_path / "project")
    tree = _pooled(repo, pool)
    git(repo, "worktree", "lock", str(tree))
    _age(tree.parent, worktree_pool_prune.IDLE_DAYS + 1)
    assert worktree_pool_prune.tidy(pool) == []
    assert tree.is_dir() and str(tree) in _listed(repo)


def test_a_pool_another_engine_is_filling_is_left_alone(tmp_path: Path,
                                                        no_git_config) -> None:
    pool = tmp_path / "data" / worktree_pool.POOL
    repo = user_repo(tmp_path / "project")
    tree = _pooled(repo, pool)
    _age(tree.parent, worktree_pool_prune.IDLE_DAYS + 1)
    with worktree_pool.held(tree.parent) as mine:
        assert mine
        assert worktree_pool_prune.tidy(pool) == []
    assert tree.is_dir()


def test_the_pool_is_tidied_at_most_once_a_day_and_never_made(tmp_path: Path) -> None:
    pool = tmp_path / worktree_pool.POOL
    now = time.time()
    assert not worktree_pool_prune.due(pool, now) and not pool.exists()
    pool.mkdir()
    assert worktree_pool_prune.due(pool, now)
    assert not worktree_pool_prune.due(pool, now + DAY / 2)
    assert worktree_pool_prune.due(pool, now + DAY)
    assert worktree_pool_prune.tidy(tmp_path / "nowhere") == []


async def test_a_run_tidies_the_pool_before_it_writes_its_spare(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(worktree_spare.SWITCH, "1")
    data = tmp_path / "data"
    pool = data / worktree_pool.POOL
    gone = user_repo(tmp_path / "gone")
    left = _pooled(gone, pool).parent
    shutil.rmtree(gone)
    repo = user_repo(tmp_path / "project")
    slot = worktree_pool.slot(pool, repo / ".git")
    spare_there = (f"find {shlex.quote(str(slot))} -mindepth 1 -maxdepth 1 -type d "
                   "! -name '.*' | grep -q .")
    run = await run_doc(workflow({"a": {"workspace": str(repo), "script": [
        {"shell": f"for i in $(seq 600); do {spare_there} && exit 0; sleep 0.1; done; "
                  "exit 1"}]}}), data)
    assert run.state.status == "completed"
    assert not left.exists(), "the pool of a repository gone was removed"
    assert len(worktree_pool.waiting(slot)) == 1
    assert (pool / worktree_pool_prune.STAMP).is_file()
