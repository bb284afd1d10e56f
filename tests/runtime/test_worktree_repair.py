"""A worktree put right after the engine died in the middle of git work: stale locks, a
merge of ours half done (checkout partial, or stopped at a conflict), a merge that did
finish, and a worktree whose add never finished."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitkit import USER, git, no_git_config, tree_files, user_repo

from desktop.runtime.merge_errors import MergeLeftOpen, OperationUnderWay
from desktop.runtime.worktree_repair import begin_merge, merging_mark, repair
from desktop.runtime.worktrees import NodeTree, adding_mark, commit_all, head, open_tree

__all__ = ["no_git_config"]
RUN = "1a2b3c4d-0000-4000-8000-000000000001"
IDS = {"a": "00000000-0000-4000-8000-00000000000a", "b": "00000000-0000-4000-8000-00000000000b"}


def trees(tmp_path: Path) -> tuple[Path, dict[str, NodeTree]]:
    repo = user_repo(tmp_path / "repo")
    run_dir = tmp_path / "runs" / RUN
    found = {key: open_tree(repo, run_dir, RUN, key, node_id) for key, node_id in IDS.items()}
    assert all(found.values())
    return run_dir, found  # type: ignore[return-value]


def diverged(tmp_path: Path) -> tuple[NodeTree, NodeTree]:
    """Nodes a and b, each with its own commit of committed.txt: merging conflicts."""
    _run, t = trees(tmp_path)
    for key in ("a", "b"):
        (t[key].path / "committed.txt").write_text(f"{key}'s\n")
        commit_all(t[key], f"{key}\n")
    return t["a"], t["b"]


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(folder).parts}


def gitdir(tree: NodeTree) -> Path:
    return Path(git(tree.path, "rev-parse", "--path-format=absolute", "--git-dir"))


def test_lock_files_a_killed_git_left_are_removed_and_git_works_again(
        tmp_path: Path, no_git_config) -> None:
    _run, t = trees(tmp_path)
    a = t["a"]
    locks = [gitdir(a) / "index.lock", gitdir(a) / "HEAD.lock",
             a.repo.common_dir / "refs" / "heads" / f"{a.branch}.lock"]
    for lock in locks:
        lock.write_bytes(b"")
    (a.path / "new.txt").write_text("new\n")
    failed = subprocess.run(["git", "add", "-A"], cwd=a.path, capture_output=True)
    assert failed.returncode != 0 and b"index.lock" in failed.stderr
    notes = repair(a)
    assert len(notes) == 3 and all("did not finish" in n for n in notes)
    assert not any(lock.exists() for lock in locks)
    assert commit_all(a, "new\n") is not None  # add, commit and the branch's ref all work


def test_a_merge_killed_in_its_checkout_is_undone_to_the_commit_before_it(
        tmp_path: Path, no_git_config) -> None:
    _run, t = trees(tmp_path)
    a, b = t["a"], t["b"]
    (b.path / "committed.txt").write_text("b's\n")
    (b.path / "from_b.txt").write_text("b's new file\n")
    commit_all(b, "b\n")
    before, kept = head(a.path), files(a.path)
    begin_merge(a)
    # what git leaves when killed while it writes the merged files: the index locked,
    # one file updated, a new one written, no MERGE_HEAD, the branch not moved
    (gitdir(a) / "index.lock").write_bytes(b"")
    (a.path / "committed.txt").write_text("b's\n")
    (a.path / "from_b.txt").write_text("b's new file\n")
    notes = repair(a)
    assert notes[-1] == f"undid a merge into {a.branch} that did not finish"
    assert head(a.path) == before and files(a.path) == kept
    assert git(a.path, "status", "--porcelain") == ""
    assert not merging_mark(a.path).exists()


def test_a_merge_stopped_at_a_conflict_is_aborted(tmp_path: Path, no_git_config) -> None:
    a, b = diverged(tmp_path)
    before = head(a.path)
    begin_merge(a)
    stopped = subprocess.run(["git", *USER, "merge", "--no-edit", b.branch], cwd=a.path,
                             capture_output=True)
    assert stopped.returncode == 1 and b"CONFLICT" in stopped.stdout
    assert repair(a) == [f"undid a merge left unfinished in {a.branch}",
                         f"undid a merge into {a.branch} that did not finish"]
    assert head(a.path) == before and git(a.path, "status", "--porcelain") == ""
    assert (a.path / "committed.txt").read_text() == "a's\n"


def test_a_merge_that_finished_before_the_engine_died_is_kept(
        tmp_path: Path, no_git_config) -> None:
    _run, t = trees(tmp_path)
    a, b = t["a"], t["b"]
    (a.path / "from_a.txt").write_text("a\n")
    commit_all(a, "a\n")
    (b.path / "from_b.txt").write_text("b\n")
    commit_all(b, "b\n")
    begin_merge(a)
    git(a.path, "merge", "-q", "--no-edit", b.branch)
    merged = head(a.path)
    assert repair(a) == []
    assert head(a.path) == merged and (a.path / "from_b.txt").read_text() == "b\n"
    assert git(a.path, "status", "--porcelain") == "" and not merging_mark(a.path).exists()


def test_a_worktree_whose_add_never_finished_is_made_again(
        tmp_path: Path, no_git_config) -> None:
    run_dir, t = trees(tmp_path)
    a = t["a"]
    want = tree_files(a.repo.top, a.branch)
    # killed in its checkout: git's record locked "initializing", files half written
    (a.path / "committed.txt").unlink()
    (a.path / "stray.txt").write_text("half\n")
    (gitdir(a) / "locked").write_text("initializing")
    adding_mark(a.path).touch()
    again = open_tree(a.repo.top, run_dir, RUN, "a", IDS["a"])
    assert again is not None and again.path == a.path
    assert files(a.path) == want and git(a.path, "status", "--porcelain") == ""
    assert not adding_mark(a.path).exists()
    assert "locked" not in git(a.repo.top, "worktree", "list", "--porcelain")


def test_a_persons_merge_left_open_is_kept_refused_while_conflicted_then_concluded(
        tmp_path: Path, no_git_config) -> None:
    a, b = diverged(tmp_path)
    (b.path / "from_b.txt").write_text("b\n")
    commit_all(b, "b, a file of its own\n")
    before, sent = head(a.path), head(b.path)
    stopped = subprocess.run(["git", *USER, "merge", "--no-edit", b.branch], cwd=a.path,
                             capture_output=True)  # by hand: no mark of ours
    assert stopped.returncode == 1
    (a.path / "committed.txt").write_text("half resolved\n")
    with pytest.raises(MergeLeftOpen) as refused:
        repair(a)
    assert refused.value.source == b.branch and refused.value.files == ["committed.txt"]
    assert "git merge --abort" in str(refused.value)
    assert (a.path / "committed.txt").read_text() == "half resolved\n"  # nothing undone
    assert head(a.path) == before and git(a.path, "rev-parse", "MERGE_HEAD") == sent

    git(a.path, "add", "committed.txt")
    assert repair(a) == []
    concluded = commit_all(a, "between turns\n")
    assert concluded is not None
    assert git(a.path, "rev-list", "--parents", "-n", "1", concluded).split()[1:] == \
        [before, sent]
    files_now = tree_files(a.repo.top, a.branch)
    assert files_now["committed.txt"] == b"half resolved\n"
    assert files_now["from_b.txt"] == b"b\n"
    assert not (gitdir(a) / "MERGE_HEAD").exists()


@pytest.mark.parametrize(("command", "what"), [("cherry-pick", "a cherry-pick"),
                                               ("rebase", "a rebase"),
                                               ("revert", "a revert")])
def test_a_persons_rebase_or_cherry_pick_under_way_is_kept_and_the_node_waits(
        tmp_path: Path, no_git_config, command: str, what: str) -> None:
    a, b = diverged(tmp_path)
    if command == "revert":  # reverting b's change on top of a later one of b's own
        (b.path / "committed.txt").write_text("b's again\n")
        commit_all(b, "b again\n")
        a = b
        args = ["revert", "--no-edit", "HEAD~1"]
    else:
        args = [command, b.branch]
    stopped = subprocess.run(["git", *USER, *args], cwd=a.path, capture_output=True)
    assert stopped.returncode != 0
    (a.path / "committed.txt").write_text("being resolved\n")
    before = head(a.path)
    with pytest.raises(OperationUnderWay) as waiting:
        repair(a)
    message = str(waiting.value)
    assert message.startswith(f"{what} is under way in {a.path}, the worktree of {a.branch}")
    assert f"git {command} --continue" in message and f"git {command} --abort" in message
    assert waiting.value.summary() == f"{what} under way in its worktree"
    assert (a.path / "committed.txt").read_text() == "being resolved\n"  # nothing undone
    assert head(a.path) == before
    git(a.path, command, "--abort")
    assert repair(a) == []
