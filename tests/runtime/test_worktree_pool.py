"""Pooled worktrees: a deleted run's worktrees are cleaned and kept, and the next run's
nodes take them, seeing exactly the files a new worktree would show."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine_helpers import run_doc, workflow
from gitkit import diffs_by_node, fingerprint, git, no_git_config, node_git, user_repo

from desktop.runtime import worktree_pool
from desktop.runtime.worktree_cleanup import remove_run_worktrees

__all__ = ["no_git_config"]


def _doc(repo: Path, keys: list[str], text: str):
    """The first node hands to every other one: they all work, side by side."""
    return workflow({key: {"workspace": str(repo), "script": [
        {"edit": {"path": f"{key}.txt", "content": text}},
        {"edit": {"path": f"{key}-build.log", "content": "ignored output\n"}},
        {"say": "done"}]} for key in keys}, [{"from": keys[0], "to": k} for k in keys[1:]])


def _pooled(data: Path, repo: Path) -> list[Path]:
    folder = worktree_pool.slot(data / worktree_pool.POOL, repo / ".git")
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _admin(worktree: Path) -> str:
    """The worktree's own folder in git's bookkeeping: it stays when a worktree moves."""
    return (worktree / ".git").read_text().strip()


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".git"}


async def test_the_next_run_takes_a_deleted_runs_worktree_and_sees_a_clean_base(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    data = tmp_path / "data"
    first = await run_doc(_doc(repo, ["a"], "first\n"), data)
    fresh = _files(first.run_dir / "worktrees" / "a")
    cleanup = remove_run_worktrees(first.run_dir, first.run_id, first.state.to_json_dict())
    [waiting] = _pooled(data, repo)
    assert cleanup.pooled == cleanup.removed and len(cleanup.removed) == 1
    admin = _admin(waiting)
    (waiting / "dropped-in-by-hand.txt").write_text("not the run's\n")

    second = await run_doc(_doc(repo, ["a"], "second\n"), data)
    tree = second.run_dir / "worktrees" / "a"
    assert _admin(tree) == admin and _pooled(data, repo) == []
    record = node_git(second, "a")
    # the base the node started from is what a new worktree of it holds, nothing more
    assert git(tree, "ls-tree", "-r", "--name-only", record.base).splitlines() == \
        git(repo, "ls-tree", "-r", "--name-only", record.base).splitlines()
    made = _files(tree)
    assert made.pop("a.txt") == b"second\n" and made.pop("a-build.log") == b"ignored output\n"
    assert made == {k: v for k, v in fresh.items() if k not in ("a.txt", "a-build.log")}
    [diff] = diffs_by_node(second)["a"]
    body = (second.run_dir / diff["path"]).read_text()
    assert "+second" in body and "first" not in body and "by hand" not in body
    assert fingerprint(repo) == before


async def test_the_pool_keeps_at_most_its_share_and_removes_the_rest(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    data = tmp_path / "data"
    keys = [f"n{i}" for i in range(worktree_pool.KEEP + 1)]
    engine = await run_doc(_doc(repo, keys, "x\n"), data)
    cleanup = remove_run_worktrees(engine.run_dir, engine.run_id, engine.state.to_json_dict())
    assert len(cleanup.removed) == len(keys) and len(cleanup.pooled) == worktree_pool.KEEP
    assert len(_pooled(data, repo)) == worktree_pool.KEEP
    listed = git(repo, "worktree", "list", "--porcelain")
    assert listed.count("worktree ") == 1 + worktree_pool.KEEP and str(engine.run_dir) not in listed


async def test_a_broken_pool_entry_is_dropped_and_a_new_worktree_made(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    data = tmp_path / "data"
    first = await run_doc(_doc(repo, ["a"], "first\n"), data)
    remove_run_worktrees(first.run_dir, first.run_id, first.state.to_json_dict())
    [waiting] = _pooled(data, repo)
    (waiting / ".git").unlink()  # no longer a worktree git can move
    second = await run_doc(_doc(repo, ["a"], "second\n"), data)
    assert (second.run_dir / "worktrees" / "a" / "a.txt").read_text() == "second\n"
    assert _pooled(data, repo) == [] and not waiting.exists()
    assert "prunable" not in git(repo, "worktree", "list", "--porcelain")


async def test_two_runs_starting_together_never_take_the_same_worktree(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    data = tmp_path / "data"
    first = await run_doc(_doc(repo, ["a"], "first\n"), data)
    remove_run_worktrees(first.run_dir, first.run_id, first.state.to_json_dict())
    runs = await asyncio.gather(*(run_doc(_doc(repo, ["a", "b"], f"{n}\n"), data)
                                  for n in ("one", "two")))
    admins = [_admin(run.run_dir / "worktrees" / key) for run in runs for key in ("a", "b")]
    assert len(set(admins)) == 4
    for run, text in zip(runs, ("one", "two"), strict=True):
        for key in ("a", "b"):
            tree = run.run_dir / "worktrees" / key
            assert (tree / f"{key}.txt").read_text() == f"{text}\n"
            assert git(tree, "status", "--porcelain") == ""


async def test_a_pooled_worktree_the_user_locked_is_neither_taken_nor_dropped(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    data = tmp_path / "data"
    first = await run_doc(_doc(repo, ["a"], "first\n"), data)
    remove_run_worktrees(first.run_dir, first.run_id, first.state.to_json_dict())
    [waiting] = _pooled(data, repo)
    admin = _admin(waiting)
    git(repo, "worktree", "lock", "--reason", "mine now", str(waiting))
    (waiting / "my-notes.txt").write_text("kept\n")
    second = await run_doc(_doc(repo, ["a"], "second\n"), data)
    tree = second.run_dir / "worktrees" / "a"
    assert _admin(tree) != admin and (tree / "a.txt").read_text() == "second\n"
    assert _pooled(data, repo) == [waiting] and _admin(waiting) == admin
    assert (waiting / "my-notes.txt").read_text() == "kept\n"
    assert worktree_pool.locked(repo / ".git") == {waiting.resolve()}
