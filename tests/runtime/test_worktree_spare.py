"""A spare worktree written into the pool while a run works: the repository's next run takes
its first node's worktree from there. Made once per repository, by one engine at a time,
never for the data folder's own repositories, and stopped without leaving a part behind."""

from __future__ import annotations

import fcntl
import os
import shlex
from pathlib import Path

import pytest
from engine_helpers import run_doc, workflow
from gitkit import fingerprint, git, no_git_config, user_repo

from desktop.runtime import worktree_pool, worktree_spare
from desktop.runtime.git_run import Stopped, Stopper

__all__ = ["no_git_config"]


@pytest.fixture
def spares_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(worktree_spare.SWITCH, "1")


def _slot(data: Path, repo: Path) -> Path:
    return worktree_pool.slot(data / worktree_pool.POOL, repo / ".git")


def _worktrees(repo: Path) -> list[str]:
    listed = git(repo, "worktree", "list", "--porcelain").split("\n\n")
    return [record.splitlines()[0].removeprefix("worktree ") for record in listed]


def _tracked(folder: Path) -> dict[str, bytes]:
    names = git(folder, "ls-files", "-z").split("\0")
    return {name: (folder / name).read_bytes() for name in names if name}


def test_a_spare_is_the_repositorys_head_checked_out_once(tmp_path: Path,
                                                           no_git_config) -> None:
    repo = user_repo(tmp_path / "project")  # with uncommitted work of the user's
    before = fingerprint(repo)
    pool = tmp_path / "data" / worktree_pool.POOL
    spare = worktree_spare.make(repo, pool)
    assert spare is not None and spare.parent == _slot(tmp_path / "data", repo)
    assert worktree_pool.waiting(spare.parent) == [spare]
    assert git(spare, "rev-parse", "HEAD") == git(repo, "rev-parse", "HEAD")
    assert git(spare, "status", "--porcelain", "--ignored") == ""  # every file written
    assert sorted(_tracked(spare)) == git(repo, "ls-tree", "-r", "--name-only",
                                          "HEAD").splitlines()
    assert git(spare, "rev-parse", "--abbrev-ref", "HEAD") == "HEAD"  # detached
    assert worktree_spare.make(repo, pool) is None, "one spare per repository"
    assert fingerprint(repo) == before


def test_a_stopped_spare_leaves_nothing_and_a_killed_ones_part_is_removed(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    pool = tmp_path / "data" / worktree_pool.POOL
    stopper = Stopper()
    stopper.stop()
    with pytest.raises(Stopped):
        worktree_spare.make(repo, pool, stopper)
    assert _worktrees(repo) == [str(repo)]
    assert list(_slot(tmp_path / "data", repo).glob(f"{worktree_spare.MAKING}*")) == []

    # what an engine killed while writing one leaves: registered, half written
    half = _slot(tmp_path / "data", repo) / f"{worktree_spare.MAKING}dead"
    git(repo, "worktree", "add", "--quiet", "--no-checkout", "--detach", str(half), "HEAD")
    assert worktree_pool.waiting(half.parent) == [], "not offered to a run"
    spare = worktree_spare.make(repo, pool)
    assert spare is not None and not half.exists()
    assert _worktrees(repo) == [str(repo), str(spare)]


def test_an_engine_making_one_already_or_a_data_folder_repository_gets_none(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    data = tmp_path / "data"
    pool = data / worktree_pool.POOL
    slot = _slot(data, repo)
    slot.mkdir(parents=True)
    fd = os.open(slot / ".spare.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another engine, in another process or this one
        assert worktree_spare.make(repo, pool) is None
    finally:
        os.close(fd)
    scratch = user_repo(data / "runs" / "r1" / "scratch")
    assert worktree_spare.make(scratch, pool) is None
    assert _worktrees(scratch) == [str(scratch)]


@pytest.mark.parametrize(("value", "wanted"), [("0", False), (" 0 ", False), ("1", True),
                                               ("", True)])
def test_the_switch(monkeypatch: pytest.MonkeyPatch, value: str, wanted: bool) -> None:
    monkeypatch.setenv(worktree_spare.SWITCH, value)
    assert worktree_spare.wanted() is wanted


def _waits_for_a_spare(slot: Path) -> str:
    """A shell step that ends once a worktree waits in ``slot`` (at most 60 s)."""
    ready = (f"find {shlex.quote(str(slot))} -mindepth 1 -maxdepth 1 -type d "
             "! -name '.*' | grep -q .")
    return f"for i in $(seq 600); do {ready} && exit 0; sleep 0.1; done; exit 1"


async def test_the_next_run_takes_the_spare_a_run_wrote(tmp_path: Path, no_git_config,
                                                         spares_on) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    data = tmp_path / "data"
    slot = _slot(data, repo)
    first = await run_doc(workflow({"a": {"workspace": str(repo), "script": [
        {"shell": _waits_for_a_spare(slot)},
        {"edit": {"path": "a.txt", "content": "first\n"}}]}}), data)
    assert first.state.status == "completed"
    [spare] = worktree_pool.waiting(slot)
    admin = (spare / ".git").read_text()

    second = await run_doc(workflow({"a": {"workspace": str(repo), "script": [
        {"shell": _waits_for_a_spare(slot)},
        {"edit": {"path": "a.txt", "content": "second\n"}}]}}), data)
    assert second.state.status == "completed"
    tree = second.run_dir / "worktrees" / "a"
    assert (tree / ".git").read_text() == admin, "the spare, moved into the run"
    assert (tree / "a.txt").read_text() == "second\n"
    [refilled] = worktree_pool.waiting(slot)  # the second run wrote the next one
    assert refilled != spare
    assert fingerprint(repo) == before
