"""`runs prune` after a fork's folder was removed by hand: a fork's node branches start at
the commits of the run it was forked from, and a node that takes no turn in the fork
keeps that commit as its tip. Such a branch holds nothing of the user's, so the fork's
refs go, whether its source run is still there or was deleted too, and a fork of a fork
as well. When prune keeps a run's refs, it names every branch that keeps them."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
import yaml
from cli_kit import Cli, git, make_cli
from own_work import own_repo


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> Cli:
    return make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])


def flow(tmp_path: Path, repo: Path) -> Path:
    """Lead edits and hands off to Helper, which edits too; each in a worktree."""
    path = tmp_path / "two.flow.yaml"
    path.write_text(yaml.safe_dump({
        "name": "two", "task": "t",
        "nodes": [{"id": "lead", "label": "Lead", "entry": True},
                  {"id": "helper", "label": "Helper"}],
        "nodeConfigs": {
            "lead": {"workspace": str(repo), "script": [
                {"edit": {"path": "lead.txt", "content": "the lead's\n"}},
                {"handoff": {"to": "helper", "message": "go"}}]},
            "helper": {"workspace": str(repo), "script": [
                {"edit": {"path": "helper.txt", "content": "the helper's\n"}},
                {"say": "done"}]}},
        "edges": [{"from": "lead", "to": "helper"}]}))
    return path


def newest(cli: Cli) -> str:
    return orjson.loads(cli("runs", "list", "--json").out)[0]["id"]


def forked(cli: Cli, run_id: str) -> str:
    """A fork of ``run_id`` before Helper's first turn, run to its end: its id."""
    points = cli("fork", run_id[:8], "--list").out.splitlines()
    [seq] = [line.split()[0] for line in points if "before Helper's turn 1" in line]
    said = cli("fork", run_id[:8], "--at", seq)
    assert said.code == 0, said.err
    fork = newest(cli)
    assert fork != run_id
    return fork


def canvas_refs(repo: Path, run_id: str) -> str:
    return git(repo, "for-each-ref", f"refs/canvas/{run_id[:8]}/",
               f"refs/heads/canvas/{run_id[:8]}/")


def seen(repo: Path) -> dict[str, str]:
    """What of the user's repository no prune may change."""
    return {"status": git(repo, "status", "--porcelain"), "head": git(repo, "rev-parse", "HEAD"),
            "index": git(repo, "diff", "--cached"), "tree": git(repo, "diff"),
            "own": git(repo, "branch", "--list", "main", "feature",
                       "--format=%(refname:short) %(objectname)")}


@pytest.mark.parametrize("source", ["kept", "deleted", "fork of a deleted fork"])
def test_a_fork_removed_by_hand_leaves_nothing_prune_keeps(
        cli: Cli, tmp_path: Path, source: str) -> None:
    repo = own_repo(tmp_path / "project")
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    parent = newest(cli)
    fork = forked(cli, parent)
    gone = [parent]
    if source == "fork of a deleted fork":
        # its lead branch is at the first run's commit; neither that run nor the fork
        # in between is recorded in the repository once both are deleted
        gone.append(fork)
        fork = forked(cli, fork)
    lead = f"canvas/{fork[:8]}/lead"
    assert f"Run: {parent}" in git(repo, "log", "-1", "--format=%B", lead)
    if source != "kept":
        for run_id in gone:
            assert cli("runs", "delete", run_id[:8]).code == 0
    shutil.rmtree(tmp_path / "data" / "runs" / fork)
    git(repo, "worktree", "prune")
    before = seen(repo)

    said = cli("runs", "prune", str(repo))
    assert said.code == 0, said.err
    assert said.out == (f"removed what run {fork[:8]} left in {repo}: 2 branches "
                        f"(canvas/{fork[:8]}/helper, {lead}) and 1 ref under "
                        f"refs/canvas/{fork[:8]}/\n")
    assert canvas_refs(repo, fork) == ""
    assert seen(repo) == before
    if source == "kept":
        assert git(repo, "branch", "--list", f"canvas/{parent[:8]}/*").count("canvas/") == 2
        assert cli("runs", "show", parent[:8]).code == 0


def test_prune_names_every_branch_the_user_committed_on(cli: Cli, tmp_path: Path) -> None:
    repo = own_repo(tmp_path / "project")
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    run_id = newest(cli)
    mine = {}
    for node in ("helper", "lead"):
        tree = tmp_path / "data" / "runs" / run_id / "worktrees" / node
        (tree / "fix.txt").write_text(f"the user's fix on {node}\n")
        git(tree, "add", "fix.txt")
        git(tree, "commit", "-qm", f"my fix on {node}")
        mine[node] = git(tree, "rev-parse", "--short=7", "HEAD")
    shutil.rmtree(tmp_path / "data" / "runs" / run_id)
    git(repo, "worktree", "prune")

    said = cli("runs", "prune", str(repo))
    assert said.code == 1 and said.out == ""
    lines = said.err.splitlines()
    assert lines[0] == f"kept what run {run_id[:8]} left in {repo}, for 2 reasons:"
    assert lines[1:] == [
        f"  canvas/{run_id[:8]}/{node}'s newest commit, {mine[node]} (my fix on {node}), "
        f"is not the run's; keep it with `git branch NAME {mine[node]}`, or delete the "
        f"branch with `git branch -D canvas/{run_id[:8]}/{node}`" for node in ("helper", "lead")]
    [planned] = orjson.loads(cli("runs", "prune", str(repo), "--json").out)
    assert planned["removed"] is False and len(planned["keptBecause"]) == 2
    assert planned["kept"] == "; ".join(planned["keptBecause"])
    assert canvas_refs(repo, run_id).count("\n") == 2  # base ref and both branches stay
