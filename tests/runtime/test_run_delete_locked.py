"""A run with a worktree the user locked (`git worktree lock`) is not deleted: the lock
says "keep this", and the worktree lives in the run's folder. The refusal names the
worktree's branch, the user's reason and how to unlock it, and changes nothing; the
cleanup itself never cleans, pools or removes a locked worktree nor deletes its branch."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import run_doc, workflow
from gitkit import git, no_git_config, node_git, user_repo

from desktop.runtime.run_delete import WorktreesLocked, delete_run_folder
from desktop.runtime.worktree_cleanup import remove_run_worktrees

__all__ = ["no_git_config"]


async def two_nodes(tmp_path: Path):
    """A finished run whose nodes a and b each worked in a worktree of one repository."""
    repo = user_repo(tmp_path / "project")
    engine = await run_doc(workflow({
        "a": {"workspace": str(repo), "script": [{"edit": {"path": "a.txt", "content": "a\n"}},
                                                 {"handoff": {"to": "b", "message": "go"}}]},
        "b": {"workspace": str(repo), "script": [{"edit": {"path": "b.txt", "content": "b\n"}}]},
    }, [{"from": "a", "to": "b"}]), tmp_path / "data")
    return repo, engine


def traces(repo: Path, run_dir: Path) -> dict[str, object]:
    """Everything of the run a refused deletion must leave as it was."""
    return {"worktrees": git(repo, "worktree", "list", "--porcelain"),
            "refs": git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
            "files": sorted(p.relative_to(run_dir).as_posix() for p in run_dir.rglob("*")
                            if ".git" not in p.parts)}


async def test_a_run_with_a_locked_worktree_is_refused_naming_it_and_nothing_changes(
        tmp_path: Path, no_git_config) -> None:
    repo, engine = await two_nodes(tmp_path)
    locked = engine.run_dir / "worktrees" / "a"
    (locked / "notes.txt").write_text("the user's notes, untracked\n")
    git(repo, "worktree", "lock", "--reason", "reviewing it", str(locked))
    before = traces(repo, engine.run_dir)

    with pytest.raises(WorktreesLocked) as refused:
        delete_run_folder(engine.run_dir, engine.run_id, engine.state.to_json_dict())
    branch = node_git(engine, "a").branch
    assert str(refused.value) == (
        f"run {engine.run_id[:8]} not deleted, nothing was changed: kept {branch}: locked "
        f"by you (reviewing it); git worktree unlock {locked}, then delete the run again")
    assert [t.path for t in refused.value.locked] == [locked]
    assert traces(repo, engine.run_dir) == before
    assert (locked / "notes.txt").read_text() == "the user's notes, untracked\n"

    git(repo, "worktree", "unlock", str(locked))
    # dropped: kept, it would be work the deletion refuses to lose (test_unsaved_work.py)
    (locked / "notes.txt").unlink()
    went = delete_run_folder(engine.run_dir, engine.run_id, engine.state.to_json_dict())
    assert not engine.run_dir.exists() and len(went.cleanup.removed) == 2
    assert git(repo, "branch", "--list", "canvas/*") == ""


async def test_the_cleanup_leaves_a_locked_worktree_and_its_branch_and_takes_the_rest(
        tmp_path: Path, no_git_config) -> None:
    """Locked after deletion looked (or by a caller that did not look): the pool would
    clean it and `git worktree remove -f -f` would remove it; neither happens."""
    repo, engine = await two_nodes(tmp_path)
    locked = engine.run_dir / "worktrees" / "b"
    (locked / "b.txt").write_text("the user's edit, uncommitted\n")
    git(repo, "worktree", "lock", str(locked))  # no reason given
    branch, other = node_git(engine, "b").branch, node_git(engine, "a").branch

    cleanup = remove_run_worktrees(engine.run_dir, engine.run_id, engine.state.to_json_dict())
    assert [(t.path, t.branch, t.reason) for t in cleanup.locked] == [
        (locked, f"refs/heads/{branch}", "")]
    assert cleanup.locked[0].describe() == (f"kept {branch}: locked by you; "
                                            f"git worktree unlock {locked}")
    assert cleanup.removed == [engine.run_dir / "worktrees" / "a"]
    assert (locked / "b.txt").read_text() == "the user's edit, uncommitted\n"
    assert git(locked, "branch", "--show-current") == branch
    assert "locked" in git(repo, "worktree", "list", "--porcelain")
    assert git(repo, "branch", "--list", "canvas/*", "--format=%(refname:short)") == branch
    assert f"refs/heads/{other}" in cleanup.deleted
    assert cleanup.kept == [f"{repo / '.git'}: refs/heads/{branch} is checked out in a "
                            "worktree you locked"]


async def test_a_locked_worktree_moved_out_of_the_run_stays_with_its_branch(
        tmp_path: Path, no_git_config) -> None:
    """The README's way to keep a locked worktree and still delete the run."""
    repo, engine = await two_nodes(tmp_path)
    tree, mine = engine.run_dir / "worktrees" / "a", tmp_path / "mine"
    git(repo, "worktree", "lock", str(tree))
    git(repo, "worktree", "unlock", str(tree))
    git(repo, "worktree", "move", str(tree), str(mine))
    git(repo, "worktree", "lock", str(mine))
    went = delete_run_folder(engine.run_dir, engine.run_id, engine.state.to_json_dict())
    branch = node_git(engine, "a").branch
    assert not engine.run_dir.exists() and (mine / "a.txt").read_text() == "a\n"
    assert git(mine, "branch", "--show-current") == branch
    assert went.cleanup.kept == [f"{repo / '.git'}: refs/heads/{branch} is checked out "
                                 "outside the run"]
