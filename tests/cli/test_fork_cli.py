"""`agent-canvas fork` as a user runs it: points, a dry run, edits, exit codes."""

from __future__ import annotations

import io
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
from forkkit import ROOT, Recorded, events_of, record

from desktop.cli import main
from desktop.disk.paths import runs_dir
from desktop.views.forks import scan_run
from desktop.views.runs import open_run

FLOW = ROOT / "resources" / "examples" / "plan-implement-review.flow.yaml"


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return record(FLOW, tmp_path_factory.mktemp("data"))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, source: Recorded):
    data = str(source.run_dir.parent.parent)

    def run(*args: str) -> Result:
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        code = main(["fork", *args, "--data-dir", data])
        out = capsys.readouterr()
        return Result(code, out.out, out.err)
    return run


def _forks(source: Recorded) -> list[Path]:
    return [p for p in runs_dir(source.run_dir.parent.parent).iterdir()
            if open_run(p).forked_from is not None]


def test_list_shows_each_point_before_a_turn(cli, source: Recorded) -> None:
    result = cli(source.run_id[:8], "--list")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) == len(scan_run(source.run_dir).points) == 6
    assert "before Planner's turn 1" in lines[0] and "before Reviewer's turn 2" in lines[4]


def test_dry_run_shows_the_point_and_the_queued_handoff_and_writes_nothing(
        cli, source: Recorded) -> None:
    before = set(runs_dir(source.run_dir.parent.parent).iterdir())
    reviewer = next(p for p in scan_run(source.run_dir).points if p.label == "Reviewer")
    result = cli(source.run_id, "--at", str(reviewer.seq + 5), "--dry-run")
    assert result.returncode == 0
    assert f"inside a turn; the fork continues from seq {reviewer.seq}" in result.stdout
    assert "handoff for reviewer: greet() is implemented in greet.py" in result.stdout
    assert set(runs_dir(source.run_dir.parent.parent).iterdir()) == before


def test_dry_run_makes_the_edits_and_shows_them_without_writing(
        cli, source: Recorded) -> None:
    before = set(runs_dir(source.run_dir.parent.parent).iterdir())
    reviewer = next(p for p in scan_run(source.run_dir).points if p.label == "Reviewer")
    queued = next(e for e in source.events if e["type"] == "inbox.queued"
                  and e["nodeId"] == reviewer.node_id)["item"]["id"]
    result = cli(source.run_id[:8], "--at", str(reviewer.seq), "--dry-run",
                 "--node", "reviewer", "--instructions", "Look for the empty-name check.",
                 "--model", "big-1", "--edit-item", queued[:6], "Please review greet.py.",
                 "--mode", "interactive")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    node = next(line for line in lines if line.strip().startswith("reviewer "))
    assert "big-1" in node and "Look for the empty-name check." in node
    assert f"  {queued[:8]}  handoff for reviewer: Please review greet.py." in lines
    assert "would change: reviewer: instructions='Look for the empty-name check.', " \
        "model='big-1'" in lines
    assert f"would change: item {queued[:8]} for reviewer: Please review greet.py." in lines
    assert "mode: INTERACTIVE/IMPLEMENTATION" in lines
    assert set(runs_dir(source.run_dir.parent.parent).iterdir()) == before


def test_dry_run_against_a_service_refuses_edits_it_cannot_check(cli, source: Recorded
                                                                ) -> None:
    # the service shows the fork points only; no service is reached to say so
    result = cli(source.run_id, "--at", "5", "--dry-run", "--node", "reviewer",
                 "--model", "x", "--server", "http://127.0.0.1:9")
    assert result.returncode == 2
    assert "--dry-run with edits" in result.stderr and "drop --server" in result.stderr


def test_a_fork_with_edits_runs_to_the_end(cli, source: Recorded,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    reviewer = next(p for p in scan_run(source.run_dir).points if p.label == "Reviewer")
    queued = next(e for e in source.events if e["type"] == "inbox.queued"
                  and e["nodeId"] == reviewer.node_id)["item"]["id"]
    result = cli(source.run_id[:8], "--at", str(reviewer.seq), "--node", "reviewer",
                 "--instructions", "Look for the empty-name check first.",
                 "--model", "big-1", "--edit-item", queued[:6], "Please review greet.py.")
    assert result.returncode == 0, result.stderr
    assert f"forked run {source.run_id[:8]} as " in result.stderr
    assert "changed: reviewer: instructions='Look for the empty-name check first.'" \
        in result.stderr
    fork_id = result.stderr.split(" as ", 1)[1].split(":", 1)[0]
    state = open_run(runs_dir(source.run_dir.parent.parent) / fork_id)
    assert state.status == "completed"
    assert state.forked_from is not None and state.forked_from.run_id == source.run_id
    assert state.node_configs[reviewer.node_id].model == "big-1"
    data = str(source.run_dir.parent.parent)
    assert main(["runs", "show", fork_id[:8], "--data-dir", data]) == 0
    shown = capsys.readouterr().out
    assert f"forked from run {source.run_id} at seq {reviewer.seq}" in " ".join(shown.split())
    assert main(["runs", "list", "--json", "--data-dir", data]) == 0
    listed = {r["id"]: r for r in orjson.loads(capsys.readouterr().out)}
    assert listed[fork_id]["forkedFrom"] == {"runId": source.run_id, "seq": reviewer.seq}
    assert "forkedFrom" not in listed[source.run_id]


def test_no_run_leaves_a_paused_fork_that_resume_finishes(
        cli, source: Recorded, capsys: pytest.CaptureFixture[str]) -> None:
    result = cli(source.run_id, "--at", "1", "--no-run")
    assert result.returncode == 0
    fork_id = result.stderr.split(" as ", 1)[1].split(":", 1)[0]
    folder = runs_dir(source.run_dir.parent.parent) / fork_id
    assert open_run(folder).status == "paused"
    # the command it names works as printed: it finds the fork in its data folder
    printed = result.stderr.split("continue with `agent-canvas ", 1)[1].split("`", 1)[0]
    assert main(shlex.split(printed)) == 0
    assert open_run(folder).status == "completed"
    assert events_of(folder)[0]["forkedFrom"]["seq"] == scan_run(source.run_dir).points[0].seq


@pytest.mark.parametrize(("args", "message"), [
    (["--node", "ghost", "--instructions", "x", "--at", "5"], "node 'ghost'"),
    (["--at", "5", "--edit-item", "nope", "x"], "item 'nope'"),
    (["--node", "reviewer", "--at", "5"], "give new instructions"),
    ([], "give --at SEQ"),
])
@pytest.mark.parametrize("dry", [[], ["--dry-run"]], ids=["fork", "dry-run"])
def test_bad_input_exits_2_with_a_message_and_makes_no_run(
        cli, source: Recorded, args: list[str], message: str, dry: list[str]) -> None:
    # a dry run fails exactly as the fork would
    before = set(runs_dir(source.run_dir.parent.parent).iterdir())
    result = cli(source.run_id, *args, *dry)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert set(runs_dir(source.run_dir.parent.parent).iterdir()) == before


@pytest.mark.parametrize("dry", [[], ["--dry-run"]], ids=["fork", "dry-run"])
def test_a_seq_past_the_end_of_the_run_is_refused_and_makes_no_run(
        cli, source: Recorded, dry: list[str]) -> None:
    last = source.events[-1]["seq"]
    before = set(runs_dir(source.run_dir.parent.parent).iterdir())
    for at in (last + 1, last + 1000):
        result = cli(source.run_id[:8], "--at", str(at), *dry)
        assert result.returncode == 2, result.stderr
        assert f"seq {at} is past the end of run {source.run_id[:8]}" in result.stderr
        assert f"give a seq up to {last}" in result.stderr
    assert cli(source.run_id[:8], "--at", str(last), "--dry-run").returncode == 0
    assert set(runs_dir(source.run_dir.parent.parent).iterdir()) == before


def test_an_edit_option_before_any_node_is_a_usage_error(cli, source: Recorded) -> None:
    with pytest.raises(SystemExit) as exc:
        cli(source.run_id, "--at", "5", "--model", "x")
    assert exc.value.code == 2
