"""A repository with a sparse checkout: a node's worktree has the same patterns (git
copies them), and what an agent writes outside them is still its work. git refuses an
``add`` that touches a path outside the patterns unless told ``--sparse``; without it a
turn's commit failed and the run said "no change" while the agent's file sat
uncommitted in its worktree."""

from __future__ import annotations

import asyncio
from pathlib import Path

from gitkit import git, no_git_config, tree_files

from desktop.runtime import workspace_diff
from desktop.runtime.git_base import base_ref
from desktop.runtime.git_run import GitResult
from desktop.runtime.worktrees import commit_all, open_tree

__all__ = ["no_git_config"]
RUN = "5ba25e00-0000-4000-8000-000000000001"
NODE_ID = "7f0c1c3e-3a39-4c55-9d0c-5f7c2b4f3a10"


def _sparse_repo(path: Path) -> Path:
    """src/ and docs/ committed; the user's checkout has only src/ (and the top's files)."""
    for name in ("src/app.py", "docs/guide.md", "README.md"):
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(f"{name}\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "the user's commit")
    git(path, "sparse-checkout", "set", "src")
    return path


def test_a_turn_commits_what_the_agent_wrote_outside_the_sparse_patterns(
        tmp_path: Path, no_git_config) -> None:
    repo = _sparse_repo(tmp_path / "repo")
    tree = open_tree(repo, tmp_path / "runs" / RUN, RUN, "impl", NODE_ID)
    assert tree is not None
    assert (tree.path / "src" / "app.py").is_file() and not (tree.path / "docs").exists()
    (tree.path / "docs").mkdir()
    (tree.path / "docs" / "new.md").write_text("written by the agent\n")
    (tree.path / "src" / "app.py").write_text("changed\n")
    commit = commit_all(tree, "impl: turn 1\n")
    assert commit is not None
    files = tree_files(tree.path, commit)
    assert files["docs/new.md"] == b"written by the agent\n"
    assert files["src/app.py"] == b"changed\n"
    assert files["docs/guide.md"] == b"docs/guide.md\n"  # not in the worktree, not deleted


def test_the_users_own_file_outside_their_sparse_patterns_is_in_the_runs_base(
        tmp_path: Path, no_git_config) -> None:
    repo = _sparse_repo(tmp_path / "repo")
    (repo / "docs").mkdir()
    (repo / "docs" / "draft.md").write_text("the user's draft\n")
    tree = open_tree(repo, tmp_path / "runs" / RUN, RUN, "impl", NODE_ID)
    assert tree is not None
    base = tree_files(repo, base_ref(RUN))
    assert base["docs/draft.md"] == b"the user's draft\n"
    assert git(repo, "status", "--porcelain") == "?? docs/draft.md"


def test_a_shared_sparse_workspace_shows_a_file_written_outside_the_patterns(
        tmp_path: Path, no_git_config) -> None:
    repo = _sparse_repo(tmp_path / "repo")

    async def change() -> bytes:
        before = await workspace_diff.snapshot(repo)
        (repo / "docs").mkdir()
        (repo / "docs" / "new.md").write_text("written by the agent\n")
        after = await workspace_diff.snapshot(repo)
        assert before and after
        return await workspace_diff.diff(repo, before, after)

    assert b"+++ b/docs/new.md" in asyncio.run(change())


def test_a_git_failure_is_told_by_its_error_not_by_the_hint_after_it() -> None:
    err = (b"error: the following paths are outside your sparse-checkout: docs/new.md\n"
           b"hint: Use the --sparse option.\n"
           b"hint: Disable this message with \"git config advice.updateSparsePath false\"\n")
    assert GitResult(1, b"", err).reason() == (
        "error: the following paths are outside your sparse-checkout: docs/new.md")
