"""A best-of-N run with no git workspace: its attempts worked in worktrees of the run's
scratch repository, so `runs result` and `runs show` say that folder, with the
attempts' branches, is what the run left, instead of that no node had a worktree."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from desktop.cli import main
from desktop.graph.resources import examples_dir
from desktop.views.result import what_it_left
from desktop.views.runs import open_run
from desktop.views.scratch_result import scratch_result

FLOW = examples_dir() / "best-of-n.flow.yaml"


@pytest.fixture(scope="module")
def best_of(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A finished run of the best-of-two example, attempt 1 chosen: (data, run folder)."""
    data = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "stdin", io.StringIO("choose 1\n"))
        assert main(["run", str(FLOW), "--data-dir", str(data)]) == 0
    [folder] = (data / "runs").iterdir()
    return data, folder


def _branches(folder: Path) -> list[str]:
    out = subprocess.run(["git", "branch", "--format=%(refname:short)"],
                         cwd=folder / "workspace", capture_output=True, text=True, check=True)
    return sorted(b for b in out.stdout.split() if ".t1.a" in b)


def test_runs_result_names_the_scratch_folder_and_the_attempt_branches(
        best_of: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    data, folder = best_of
    branches = _branches(folder)
    assert len(branches) == 2  # the attempts did have branches
    assert main(["runs", "result", folder.name[:8], "--data-dir", str(data)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "none of its nodes worked in a git worktree" not in err
    assert f"scratch folder {folder / 'workspace'}" in err
    assert f"{branches[0]} (chosen), {branches[1]}" in err


def test_runs_show_says_what_the_result_is(best_of: tuple[Path, Path],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    data, folder = best_of
    assert main(["runs", "show", folder.name[:8], "--data-dir", str(data)]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "result: no result branch to apply; its work is in the run's scratch folder" \
        in shown
    assert main(["runs", "show", folder.name[:8], "--json", "--data-dir", str(data)]) == 0
    body = orjson.loads(capsys.readouterr().out)
    assert body["scratchResult"]["folder"] == str(folder / "workspace")
    assert [(b["branch"], b["chosen"]) for b in body["scratchResult"]["branches"]] == \
        [(b, b.endswith(".a1")) for b in _branches(folder)]


def test_the_end_nudge_points_at_the_scratch_folder(best_of: tuple[Path, Path]) -> None:
    _data, folder = best_of
    assert what_it_left(open_run(folder).to_json_dict()) == "scratch"


def test_a_turn_made_again_lists_each_branch_once_as_it_ended_last(
        best_of: tuple[Path, Path]) -> None:
    # a run detached at its choice and resumed: the turn's attempts run again on the
    # same branch names, and the second turn's choice is the one that counts
    _data, folder = best_of
    state = open_run(folder)
    node = next(n.id for n in state.nodes.values() if n.key == "implementer")

    def ended(turn: str, index: int) -> dict:
        return {"type": "attempt.completed", "nodeId": node, "turnId": turn,
                "attemptIndex": index,
                "summary": {"index": index, "branch": f"canvas/r/implementer.t1.a{index}"}}
    events = [ended("first", 2), ended("first", 1), ended("again", 2), ended("again", 1),
              {"type": "choice.made", "turnId": "again", "attemptIndex": 2}]
    found = scratch_result(state, folder, events)
    assert found is not None
    assert [(b.branch, b.chosen) for b in found.branches] == [
        ("canvas/r/implementer.t1.a1", False), ("canvas/r/implementer.t1.a2", True)]
    assert scratch_result(state, folder, [events[-1]]) is None  # no attempt has a branch


def test_the_run_itself_ends_by_saying_where_its_work_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("choose 2\n"))
    assert main(["run", str(FLOW), "--data-dir", str(tmp_path)]) == 0
    [folder] = (tmp_path / "runs").iterdir()
    said = " ".join(capsys.readouterr().err.split())
    assert "result: no result branch to apply; its work is in the run's scratch folder " \
           f"{folder / 'workspace'}" in said
    assert f"{_branches(folder)[1]} (chosen)" in said
