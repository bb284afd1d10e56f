"""A node's worktree: its name, where it is, its branch and base, and its turn commits."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from gitkit import (
    fingerprint,
    git,
    library_commit,
    no_git_config,
    tree_files,
    user_repo,
    with_submodule,
)
from hypothesis import given
from hypothesis import strategies as st

from desktop.graph.document import SLUG_PATTERN
from desktop.runtime.git_base import base_ref
from desktop.runtime.git_run import GitError
from desktop.runtime.worktrees import (
    NodeTree,
    branch_component,
    branch_name,
    commit_all,
    head,
    open_tree,
    turn_message,
)

__all__ = ["no_git_config"]
RUN = "1a2b3c4d-0000-4000-8000-000000000001"
NODE_ID = "7f0c1c3e-3a39-4c55-9d0c-5f7c2b4f3a10"


def ref_ok(ref: str) -> bool:
    return subprocess.run(["git", "check-ref-format", ref], capture_output=True).returncode == 0


@given(key=st.from_regex(SLUG_PATTERN, fullmatch=True))
def test_every_node_key_gives_a_branch_git_accepts(key: str) -> None:
    component = branch_component(key, NODE_ID)
    assert component in (key, NODE_ID)
    assert "/" not in component
    assert ref_ok(f"refs/heads/{branch_name(RUN, component)}")
    if ref_ok(f"refs/heads/canvas/x/{key}") and not key.endswith("."):
        assert component == key  # a key git takes as it is stays readable


SLUGS = st.from_regex(SLUG_PATTERN, fullmatch=True)
SCOPED = st.lists(SLUGS, min_size=1, max_size=3).map("/".join)


@given(keys=st.lists(SCOPED, min_size=2, max_size=6, unique=True))
def test_distinct_keys_of_a_run_never_share_a_branch(keys: list[str]) -> None:
    # a subflow's node (review/tester) beside top-level ones: no two nodes of a run
    # (keys are unique in it, ids follow from keys) may work in one worktree
    ids = [f"{i:08d}-0000-4000-8000-000000000000" for i in range(len(keys))]
    components = [branch_component(key, node) for key, node in zip(keys, ids, strict=True)]
    assert len(set(components)) == len(components)
    for key, component in zip(keys, components, strict=True):
        assert "/" not in component
        assert ref_ok(f"refs/heads/{branch_name(RUN, component)}")
        if "/" in key and component not in ids:
            assert component.split("+") == key.split("/")  # readable: review+tester


def test_a_subflows_node_keeps_the_id_named_worktree_of_a_run_made_before(
        tmp_path: Path) -> None:
    run_dir = tmp_path / RUN
    assert branch_component("review/tester", NODE_ID, run_dir) == "review+tester"
    (run_dir / "worktrees" / NODE_ID).mkdir(parents=True)
    assert branch_component("review/tester", NODE_ID, run_dir) == NODE_ID
    assert branch_component("tester", NODE_ID, run_dir) == "tester"


def test_keys_git_refuses_fall_back_to_the_node_id() -> None:
    for key in ("a..b", "a.", "x.lock", "a.-b"):
        assert branch_component(key, NODE_ID) in (NODE_ID, key)
        assert ref_ok(f"refs/heads/canvas/1a2b3c4d/{branch_component(key, NODE_ID)}")
    assert branch_component(None, NODE_ID) == NODE_ID


def test_a_node_gets_its_worktree_on_its_branch_from_the_base(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    before = fingerprint(repo)
    run_dir = tmp_path / "data" / "runs" / RUN
    tree = open_tree(repo, run_dir, RUN, "impl", NODE_ID)
    assert tree is not None
    assert tree.path == (run_dir / "worktrees" / "impl").absolute()
    assert tree.branch == "canvas/1a2b3c4d/impl" == git(tree.path, "branch", "--show-current")
    assert tree.base == git(repo, "rev-parse", base_ref(RUN)) == head(tree.path)
    assert (tree.path / "untracked.txt").read_text() == "untracked\n"
    assert (tree.path / "both.txt").read_text() == "v3 in the working tree\n"
    assert git(tree.path, "status", "--porcelain") == ""
    assert fingerprint(repo) == before
    assert open_tree(repo, run_dir, RUN, "impl", NODE_ID) == tree  # reused, not remade
    record = tree.record(run_dir)
    assert record["worktree"] == record["workdir"] == "worktrees/impl"


def test_a_workspace_below_the_top_is_the_same_folder_in_the_worktree(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    (repo / "pkg").mkdir()
    (repo / "pkg" / "mod.py").write_text("x = 1\n")
    run_dir = tmp_path / "runs" / RUN
    tree = open_tree(repo / "pkg", run_dir, RUN, "impl", NODE_ID)
    assert tree is not None and tree.workdir == tree.path / "pkg"
    assert (tree.workdir / "mod.py").read_text() == "x = 1\n"
    assert tree.record(run_dir)["workdir"] == "worktrees/impl/pkg"


def test_a_folder_outside_git_has_no_worktree(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert open_tree(tmp_path / "plain", tmp_path / "runs" / RUN, RUN, "a", NODE_ID) is None


def test_a_leftover_folder_of_an_unfinished_worktree_is_replaced(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    run_dir = tmp_path / "runs" / RUN
    (run_dir / "worktrees" / "impl").mkdir(parents=True)
    (run_dir / "worktrees" / "impl" / "half").write_text("")
    tree = open_tree(repo, run_dir, RUN, "impl", NODE_ID)
    assert tree is not None and (tree.path / "committed.txt").is_file()
    assert not (tree.path / "half").exists()


def test_a_worktree_that_lost_its_git_file_is_repaired_with_its_work_not_made_anew(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    run_dir = tmp_path / "runs" / RUN
    tree = open_tree(repo, run_dir, RUN, "impl", NODE_ID)
    assert tree is not None
    (tree.path / "agent.txt").write_text("not committed yet\n")
    (tree.path / ".git").unlink()
    again = open_tree(repo, run_dir, RUN, "impl", NODE_ID)
    assert again == tree and (tree.path / ".git").is_file()
    assert (tree.path / "agent.txt").read_text() == "not committed yet\n"
    assert git(tree.path, "status", "--porcelain") == "?? agent.txt"


def test_a_turn_commits_every_change_and_nothing_commits_nothing(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    tree = open_tree(repo, tmp_path / "runs" / RUN, RUN, "impl", NODE_ID)
    assert tree is not None
    message = turn_message(RUN, "impl", NODE_ID, 2, "20260101-0000000000-1", 1)
    assert commit_all(tree, message) is None
    (tree.path / "new.txt").write_text("new\n")
    (tree.path / "staged.txt").unlink()
    (tree.path / "trace.log").write_text("ignored\n")
    commit = commit_all(tree, message)
    assert commit is not None and commit == head(tree.path)
    assert git(tree.path, "rev-parse", f"{commit}^") == tree.base
    files = tree_files(tree.path, commit)
    assert files["new.txt"] == b"new\n" and "staged.txt" not in files
    assert "trace.log" not in files
    shown = git(tree.path, "log", "-1", "--format=%an <%ae>|%cn|%B", commit)
    assert shown.startswith("Agent Canvas <agent-canvas@localhost>|Agent Canvas|")
    assert re.search(r"impl: turn 2 of run 1a2b3c4d", shown)
    assert f"Run: {RUN}" in shown and "Turn: 2" in shown and "Agent-Run: 2026" in shown
    assert git(repo, "rev-parse", "refs/heads/canvas/1a2b3c4d/impl") == commit


def test_a_turn_after_the_agent_checked_out_a_users_branch_never_moves_that_branch(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    git(repo, "branch", "feature", "HEAD")
    feature = git(repo, "rev-parse", "feature")
    tree = open_tree(repo, tmp_path / "runs" / RUN, RUN, "impl", NODE_ID)
    assert tree is not None
    message = turn_message(RUN, "impl", NODE_ID, 1, "20260101-0000000000-1", 1)
    for leave in (["checkout", "-q", "feature"], ["checkout", "-q", "--detach", "HEAD"]):
        git(tree.path, *leave)
        (tree.path / "agent.txt").write_text(" ".join(leave) + "\n")
        commit = commit_all(tree, message)
        assert commit is not None
        assert git(repo, "rev-parse", "feature") == feature
        assert git(repo, "rev-parse", f"refs/heads/{tree.branch}") == commit
        assert git(tree.path, "symbolic-ref", "HEAD") == f"refs/heads/{tree.branch}"
        assert tree_files(tree.path, commit)["agent.txt"] == (" ".join(leave) + "\n").encode()
        assert git(tree.path, "status", "--porcelain") == ""


@pytest.mark.parametrize("packed", [False, True])
def test_a_users_branch_named_as_the_runs_folder_of_branches_is_named_with_the_fix(
        tmp_path: Path, no_git_config, packed: bool) -> None:
    repo = user_repo(tmp_path / "repo")
    git(repo, "branch", "canvas", "HEAD")
    if packed:
        git(repo, "pack-refs", "--all")
    with pytest.raises(GitError) as raised:
        open_tree(repo, tmp_path / "runs" / RUN, RUN, "impl", NODE_ID)
    said = str(raised.value)
    assert "has a branch named canvas" in said and "canvas/1a2b3c4d/impl" in said
    assert f"git -C {repo} branch -m canvas NEW-NAME" in said
    assert git(repo, "branch", "--list", "canvas/*") == ""


def test_a_turn_in_a_worktree_whose_git_file_went_never_commits_in_the_repository_around_it(
        tmp_path: Path, no_git_config) -> None:
    """A data folder inside the user's repository: git, asked in a worktree that lost its
    ``.git``, would take theirs, staging everything and moving their branch."""
    repo = user_repo(tmp_path / "repo")
    tree = open_tree(repo, repo / "data" / "runs" / RUN, RUN, "impl", NODE_ID)
    assert tree is not None
    (tree.path / ".git").unlink()
    (tree.path / "agent.txt").write_text("work\n")
    theirs = ("index", "head", "refs", "stash")  # files: the data folder's are ours
    before = {k: v for k, v in fingerprint(repo).items() if k in theirs}
    with pytest.raises(GitError):
        commit_all(tree, turn_message(RUN, "impl", NODE_ID, 1, "20260101-0000000000-1", 1))
    assert {k: v for k, v in fingerprint(repo).items() if k in theirs} == before


def test_what_agents_leave_behind_stays_out_of_a_turn_and_the_users_excludes_hold(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    theirs = tmp_path / "their-excludes"
    theirs.write_text("*.secret")  # their own global ignore file, no newline at the end
    git(repo, "config", "core.excludesFile", str(theirs))
    (repo / "kept.pyc").write_bytes(b"tracked on purpose")
    git(repo, "add", "-f", "kept.pyc")
    git(repo, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-m", "pyc")
    tree = open_tree(repo, tmp_path / "runs" / RUN, RUN, "impl", NODE_ID)
    assert tree is not None
    for junk in ("__pycache__/mod.cpython-311.pyc", "pkg/__pycache__/x.pyc", "loose.pyc",
                 ".pytest_cache/v/cache/nodeids", ".ruff_cache/x", "api.secret"):
        (tree.path / junk).parent.mkdir(parents=True, exist_ok=True)
        (tree.path / junk).write_text("junk\n")
    (tree.path / "pkg" / "mod.py").write_text("VALUE = 1\n")
    (tree.path / "kept.pyc").write_bytes(b"changed by the agent")
    commit = commit_all(tree, turn_message(RUN, "impl", NODE_ID, 1, "20260101-0000000000-1", 1))
    changed = git(tree.path, "diff", "--name-only", tree.base, commit).split()
    assert sorted(changed) == ["kept.pyc", "pkg/mod.py"]  # a tracked file still counts
    assert git(repo, "config", "--get", "core.excludesFile") == str(theirs)  # untouched


def _tree_with_submodule(tmp_path: Path) -> tuple[NodeTree, Path, str, str]:
    """A node's worktree of a repository whose submodule ``lib`` has a commit newer than
    the one recorded: (the worktree, the submodule's repository, recorded, newer)."""
    repo, lib = with_submodule(tmp_path, at="lib")
    old = git(lib, "rev-parse", "HEAD")
    new = library_commit(lib, "v2\n")
    tree = open_tree(repo, tmp_path / "runs" / RUN, RUN, "a", NODE_ID)
    assert tree is not None
    return tree, lib, old, new


def _merged(tree: NodeTree, commit: str) -> None:
    """What a merge of another node's update of ``lib`` does to the branch: records
    ``commit``, leaving the checkout as it is."""
    git(tree.path, "update-index", "--cacheinfo", f"160000,{commit},lib")
    git(tree.path, "commit", "-q", "-m", "merged another node's update")


def test_a_turn_keeps_a_submodule_update_a_merge_brought_and_one_the_node_made(
        tmp_path: Path, no_git_config) -> None:
    """A submodule checked out in the worktree stays where it was when a merge moves the
    commit the branch records; the turn's commit must keep the merge's, not undo it. A
    submodule the node itself moved on is recorded as it is."""
    tree, lib, old, new = _tree_with_submodule(tmp_path)
    git(tree.path, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q")
    assert git(tree.path / "lib", "rev-parse", "HEAD") == old
    _merged(tree, new)
    (tree.path / "mine.txt").write_text("the node's own work\n")
    commit = commit_all(tree, "turn 1\n")
    assert commit is not None
    assert git(tree.path, "rev-parse", f"{commit}:lib") == new
    assert "mine.txt" in git(tree.path, "ls-tree", "--name-only", commit)

    newer = library_commit(lib, "v3\n")  # the node moves it on itself
    git(tree.path / "lib", "fetch", "-q", "origin")
    git(tree.path / "lib", "checkout", "-q", newer)
    commit = commit_all(tree, "turn 2\n")
    assert commit is not None and git(tree.path, "rev-parse", f"{commit}:lib") == newer


def test_a_submodule_a_merge_moved_is_checked_out_where_the_branch_records_it(
        tmp_path: Path, no_git_config) -> None:
    """After a merge, a submodule behind the commit its branch records is checked out
    at it from its clone; one the clone lacks is left, and the note says how to fetch."""
    from desktop.runtime.submodules import behind, catch_up

    tree, lib, _old, new = _tree_with_submodule(tmp_path)
    assert catch_up(tree.path) == []  # not checked out: nothing behind
    git(tree.path, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q")
    _merged(tree, new)
    assert behind(tree.path) == ["lib"]
    assert catch_up(tree.path) == [f"checked submodule lib out at {new[:12]}, as the merge "
                                   "recorded"]
    assert (tree.path / "lib" / "lib.txt").read_text() == "v2\n" and behind(tree.path) == []

    _merged(tree, library_commit(lib, "v3\n"))  # made after the clone: not in it
    [note] = catch_up(tree.path)
    assert "stays checked out behind" in note and "(its clone here lacks it)" in note
    assert "git submodule update -- lib" in note
    assert (tree.path / "lib" / "lib.txt").read_text() == "v2\n"
    git(tree.path / "lib", "fetch", "-q", "origin")  # it has it now, but a change of the
    (tree.path / "lib" / "lib.txt").write_text("the node's own edit\n")  # node's is there
    [note] = catch_up(tree.path)
    assert "stays checked out behind" in note and "(git: " in note
    assert (tree.path / "lib" / "lib.txt").read_text() == "the node's own edit\n"
