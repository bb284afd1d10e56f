"""Merging a sender's branch into a node's worktree: clean, up to date, or a conflict left
open (described within bounds) and undone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitkit import USER, git, no_git_config, user_repo

from desktop.contract.isolation import NodeGit
from desktop.contract.state import NodeState
from desktop.runtime import merge_conflict
from desktop.runtime.worktree_merge import (
    Conflicted,
    MergeConflict,
    Source,
    abort,
    inbox_sources,
    merge_one,
    merge_open,
)
from desktop.runtime.worktree_repair import begin_merge, merging_mark, repair
from desktop.runtime.worktrees import NodeTree, commit_all, head, open_tree

__all__ = ["no_git_config"]
RUN = "1a2b3c4d-0000-4000-8000-000000000001"
IDS = {"a": "00000000-0000-4000-8000-00000000000a", "b": "00000000-0000-4000-8000-00000000000b",
       "c": "00000000-0000-4000-8000-00000000000c"}


def trees(tmp_path: Path, *keys: str) -> dict[str, NodeTree]:
    repo = user_repo(tmp_path / "repo")
    run_dir = tmp_path / "runs" / RUN
    found = {}
    for key in keys:
        tree = open_tree(repo, run_dir, RUN, key, IDS[key])
        assert tree is not None
        found[key] = tree
    return found


def write(tree: NodeTree, name: str, text: str) -> str:
    (tree.path / name).write_text(text)
    commit = commit_all(tree, f"{name}\n")
    assert commit is not None
    return commit


def test_a_sender_branch_ahead_is_merged_and_one_behind_is_not(
        tmp_path: Path, no_git_config) -> None:
    t = trees(tmp_path, "a", "b")
    assert merge_one(t["b"], Source(t["a"].branch, "a")) is None  # nothing new: same base
    write(t["a"], "from_a.txt", "a's work\n")
    merged = merge_one(t["b"], Source(t["a"].branch, "a"))
    assert merged is not None and merged.commit == head(t["b"].path)
    assert (t["b"].path / "from_a.txt").read_text() == "a's work\n"
    assert merge_one(t["b"], Source(t["a"].branch, "a")) is None  # already in


def test_parallel_branches_merge_one_after_the_other(tmp_path: Path, no_git_config) -> None:
    t = trees(tmp_path, "a", "b", "c")
    write(t["b"], "b.txt", "b\n")
    write(t["c"], "c.txt", "c\n")
    assert merge_one(t["a"], Source(t["b"].branch, "b")) is not None
    second = merge_one(t["a"], Source(t["c"].branch, "c"))
    assert second is not None
    assert len(git(t["a"].path, "rev-list", "--parents", "-n", "1", "HEAD").split()) == 3
    assert (t["a"].path / "b.txt").exists() and (t["a"].path / "c.txt").exists()


def test_a_conflict_is_left_open_with_markers_naming_the_branch_and_can_be_undone(
        tmp_path: Path, no_git_config) -> None:
    t = trees(tmp_path, "a", "b", "c")
    write(t["b"], "committed.txt", "b's version\n")
    sent = write(t["c"], "committed.txt", "c's version\n")
    assert merge_one(t["a"], Source(t["b"].branch, "b")) is not None
    before = head(t["a"].path)
    conflict = merge_one(t["a"], Source(t["c"].branch, "c", sent))
    assert isinstance(conflict, Conflicted)
    assert conflict.files == ["committed.txt"] and conflict.commit == sent
    assert merge_open(t["a"]) and merging_mark(t["a"].path).exists()
    text = (t["a"].path / "committed.txt").read_text()
    assert text.startswith("<<<<<<< HEAD\nb's version\n|||||||")  # diff3: with the base
    assert text.endswith(f"=======\nc's version\n>>>>>>> {t['c'].branch}\n")
    abort(t["a"])
    assert head(t["a"].path) == before and git(t["a"].path, "status", "--porcelain") == ""
    assert (t["a"].path / "committed.txt").read_text() == "b's version\n"
    assert repair(t["a"]) == [] and not merging_mark(t["a"].path).exists()  # nothing left
    # the message a refused merge raises names both branches, the file and the way out
    text = str(MergeConflict(t["c"].branch, t["a"].branch, ["committed.txt"], t["a"].path,
                             "the merge was refused"))
    assert t["c"].branch in text and t["a"].branch in text and "committed.txt" in text
    assert str(t["a"].path) in text and "resume" in text and "refused" in text


def test_a_merge_left_half_done_is_undone(tmp_path: Path, no_git_config) -> None:
    t = trees(tmp_path, "a", "b")
    write(t["a"], "committed.txt", "a's\n")
    write(t["b"], "committed.txt", "b's\n")
    before = head(t["a"].path)
    begin_merge(t["a"])  # the engine's merge (a person's is kept: test_worktree_repair.py)
    stopped = subprocess.run(["git", *USER, "merge", "--no-edit", t["b"].branch],
                             cwd=t["a"].path, capture_output=True, check=False)
    assert stopped.returncode == 1  # a dead engine's merge, stopped at the conflict
    assert repair(t["a"])[0] == f"undid a merge left unfinished in {t['a'].branch}"
    assert head(t["a"].path) == before and git(t["a"].path, "status", "--porcelain") == ""


def test_the_inbox_names_each_sender_branch_once_and_only_in_this_repository(
        tmp_path: Path, no_git_config) -> None:
    t = trees(tmp_path, "a", "b", "c")
    elsewhere = NodeGit(repo="/x", commonDir="/x/.git", branch="canvas/1a2b3c4d/c", base="0",
                        worktree="w", workdir="w")
    peers = {
        IDS["b"]: NodeState(id=IDS["b"], runId=RUN, key="b", label="B",
                            git=t["b"].record(tmp_path / "runs" / RUN)),
        IDS["c"]: NodeState(id=IDS["c"], runId=RUN, key="c", label="C", git=elsewhere),
    }

    def item(kind: str, sender: str) -> dict:
        return {"kind": kind, "envelope": {"fromNodeId": IDS[sender]}}

    items = [item("handoff", "b"), item("report", "b"), item("report", "c"),
             {"kind": "user", "text": "hi"}, {"kind": "task", "text": "go"}]
    assert inbox_sources(items, peers, t["a"]) == [Source(t["b"].branch, "b")]
    # each sender once, with the commit of its last envelope
    first, second = write(t["b"], "one.txt", "1\n"), write(t["b"], "two.txt", "2\n")
    items[0]["envelope"]["commit"], items[1]["envelope"]["commit"] = first, second
    assert inbox_sources(items, peers, t["a"]) == [Source(t["b"].branch, "b", second)]


def test_the_commit_a_sender_sent_is_merged_not_its_branch_s_later_work(
        tmp_path: Path, no_git_config) -> None:
    t = trees(tmp_path, "a", "b")
    sent = write(t["b"], "sent.txt", "sent\n")
    write(t["b"], "later.txt", "after the handoff\n")
    merged = merge_one(t["a"], Source(t["b"].branch, "b", sent))
    assert merged is not None
    assert (t["a"].path / "sent.txt").exists() and not (t["a"].path / "later.txt").exists()
    assert merge_one(t["a"], Source(t["b"].branch, "b", sent)) is None  # in already


def test_a_request_keeps_its_hunks_within_bounds(tmp_path: Path, no_git_config,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    t = trees(tmp_path, "a", "b")
    long = "".join(f"line {i}\n" for i in range(400))
    write(t["a"], "one.txt", "a\n" + long)
    write(t["a"], "two.txt", "a\n")
    write(t["b"], "one.txt", "b\n" + long.upper())
    write(t["b"], "two.txt", "b\n")
    conflict = merge_one(t["a"], Source(t["b"].branch, "b"))
    assert isinstance(conflict, Conflicted)
    whole = merge_conflict.describe(t["a"], conflict)
    assert [len(f["hunks"]) for f in whole["files"]] == [1, 1]
    assert not any(f.get("truncated") for f in whole["files"])
    monkeypatch.setattr(merge_conflict, "MAX_TOTAL_CHARS", 1000)
    bounded = merge_conflict.describe(t["a"], conflict)
    assert [len(f["hunks"]) for f in bounded["files"]] == [0, 1]
    assert bounded["files"][0]["truncated"] and not bounded["files"][1].get("truncated")
    abort(t["a"])
