"""Deleting a run's git traces: its worktrees and branches go, nothing else does."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine_helpers import run_doc, workflow
from gitkit import diffs_by_node, fingerprint, git, no_git_config, node_git, tree_files, user_repo

from desktop.runtime.git_base import ensure_base
from desktop.runtime.worktree_cleanup import remove_run_worktrees

__all__ = ["no_git_config"]


async def test_two_runs_on_one_repository_keep_apart_and_delete_apart(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)

    def doc(text: str):
        return workflow({"a": {"workspace": str(repo), "script": [
            {"edit": {"path": "a.txt", "content": text}}, {"say": "done"}]}})

    first, second = await asyncio.gather(run_doc(doc("first\n"), tmp_path / "data"),
                                         run_doc(doc("second\n"), tmp_path / "data"))
    branches = {}
    for engine, text in ((first, b"first\n"), (second, b"second\n")):
        record = node_git(engine, "a")
        branches[engine.run_id] = record.branch
        assert tree_files(repo, record.branch)["a.txt"] == text
        [art] = diffs_by_node(engine)["a"]
        assert "+" + text.decode().strip() in (engine.run_dir / art["path"]).read_text()
    assert len(set(branches.values())) == 2
    assert fingerprint(repo) == before

    state = first.state.to_json_dict()
    cleanup = remove_run_worktrees(first.run_dir, first.run_id, state)
    assert cleanup.kept == [] and len(cleanup.removed) == 1
    assert set(cleanup.deleted) == {f"refs/heads/{branches[first.run_id]}",
                                    f"refs/canvas/{first.run_id[:8]}/base"}
    left = git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/canvas/", "refs/canvas/")
    assert set(left.splitlines()) == {f"refs/heads/{branches[second.run_id]}",
                                      f"refs/canvas/{second.run_id[:8]}/base"}
    listed = git(repo, "worktree", "list", "--porcelain")
    assert str(first.run_dir) not in listed and str(second.run_dir) in listed
    assert (second.run_dir / "worktrees" / "a" / "a.txt").read_text() == "second\n"

    remove_run_worktrees(second.run_dir, second.run_id, second.state.to_json_dict())
    assert git(repo, "for-each-ref", "refs/heads/canvas/", "refs/canvas/") == ""
    assert fingerprint(repo) == before
    # what is left is two worktrees waiting in the pool, with nothing of either run in them
    records = git(repo, "worktree", "list", "--porcelain").split("\n\n")[1:]
    assert len(records) == 2 and cleanup.pooled == cleanup.removed
    theirs = git(repo, "rev-parse", "HEAD")
    for record in records:
        path = Path(record.splitlines()[0].removeprefix("worktree "))
        assert path.parent.parent == tmp_path / "data" / "worktree-pool"
        assert f"HEAD {theirs}" in record and "detached" in record
        assert not (path / "a.txt").exists() and git(path, "status", "--porcelain") == ""


async def test_a_branch_the_user_checked_out_is_kept_when_the_run_is_deleted(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    engine = await run_doc(workflow({"a": {"workspace": str(repo), "script": [
        {"edit": {"path": "a.txt", "content": "a\n"}}]}}), tmp_path / "data")
    branch = node_git(engine, "a").branch
    mine = tmp_path / "mine"  # the user's own checkout of the node's branch
    git(engine.run_dir / "worktrees" / "a", "checkout", "-q", "--detach")
    git(repo, "worktree", "add", "-q", str(mine), branch)
    cleanup = remove_run_worktrees(engine.run_dir, engine.run_id, engine.state.to_json_dict())
    assert cleanup.kept == [f"{repo / '.git'}: refs/heads/{branch} is checked out outside the run"]
    assert git(mine, "branch", "--show-current") == branch


async def test_without_its_state_a_run_is_found_through_its_worktree_folders(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    engine = await run_doc(workflow({"a": {"workspace": str(repo), "script": [
        {"edit": {"path": "a.txt", "content": "a\n"}}]}}), tmp_path / "data")
    cleanup = remove_run_worktrees(engine.run_dir, engine.run_id, None)
    assert len(cleanup.removed) == 1 and len(cleanup.deleted) == 2
    assert git(repo, "for-each-ref", "refs/heads/canvas/", "refs/canvas/") == ""


async def test_refs_of_another_run_with_the_same_first_8_characters_are_kept(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    engine = await run_doc(workflow({"a": {"workspace": str(repo), "script": [
        {"edit": {"path": "a.txt", "content": "a\n"}}]}}), tmp_path / "data")
    twin = engine.run_id[:8] + "-ffff-4fff-8fff-ffffffffffff"
    state = engine.state.to_json_dict()
    git(repo, "update-ref", "-d", f"refs/canvas/{engine.run_id[:8]}/base")
    ensure_base(repo, twin)  # the base ref now belongs to the twin
    cleanup = remove_run_worktrees(engine.run_dir, engine.run_id, state)
    assert len(cleanup.removed) == 1 and cleanup.deleted == []
    assert "belongs to another run" in cleanup.kept[0]
    assert node_git(engine, "a").branch in git(repo, "branch", "--list", "canvas/*")
