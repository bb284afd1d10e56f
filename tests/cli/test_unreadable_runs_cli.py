"""A run whose log or folder this user may not read (mode 000, another user's): every
command on it refuses with the path and the chmod that fixes it, exit 2, never a
traceback, and `runs list` shows it as unreadable among the runs it can read. replay
says the same of a state.json it may not read (the file it compares the log with)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from cli_kit import Cli, make_cli, unreadable
from forkkit import ROOT, Recorded, record

from desktop.disk.paths import runs_dir
from desktop.store.jsonl import EVENTS_FILE

FLOW = ROOT / "resources" / "examples" / "single-agent.flow.yaml"
COMMANDS = [["runs", "show"], ["runs", "events"], ["runs", "result"], ["runs", "apply"],
            ["runs", "delete"], ["replay"], ["fork", "--list"], ["fork", "--at", "3"],
            ["resume"]]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return record(FLOW, tmp_path_factory.mktemp("data"))


@pytest.fixture
def data(source: Recorded, tmp_path: Path) -> Path:
    """A data folder with a readable run and a copy of it to make unreadable."""
    root = tmp_path / "my data ü"
    shutil.copytree(source.run_dir.parent.parent, root)
    kept = runs_dir(root) / source.run_dir.name
    shutil.copytree(kept, runs_dir(root) / "dddd0000-0000-4000-8000-000000000001")
    return root


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        data: Path) -> Cli:
    return make_cli(capsys, monkeypatch, ["--data-dir", str(data)])


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("what", ["log", "folder"])
def test_a_run_it_may_not_read_is_refused_with_the_path_and_the_fix(
        cli: Cli, data: Path, command: list[str], what: str) -> None:
    run = runs_dir(data) / "dddd0000-0000-4000-8000-000000000001"
    before, runs_before = _files(data), sorted(runs_dir(data).iterdir())
    with unreadable(run / EVENTS_FILE if what == "log" else run):
        result = cli(*command[:2] if command[0] == "runs" else command[:1], "dddd",
                     *command[1:] if command[0] != "runs" else ())
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.err and result.err.count("\n") == 1, result.err
    assert f"{run / EVENTS_FILE}: cannot read it (Permission denied)" in result.err
    assert f"chmod -R u+rwX '{run}'" in result.err
    assert _files(data) == before and sorted(runs_dir(data).iterdir()) == runs_before


def test_runs_list_shows_the_unreadable_run_among_the_others(
        cli: Cli, data: Path, source: Recorded) -> None:
    run = runs_dir(data) / "dddd0000-0000-4000-8000-000000000001"
    with unreadable(run / EVENTS_FILE):
        listed = cli("runs", "list", "--json")
        table = cli("runs", "list")
    assert listed.code == 0 and table.code == 0, listed.err + table.err
    rows = {row["id"]: row for row in orjson.loads(listed.out)}
    assert rows[source.run_id]["status"] == "completed"
    assert rows[run.name]["status"] == "unreadable"
    assert "1 run unreadable (dddd0000)" in table.err and "Traceback" not in table.err


def test_a_runs_folder_it_may_not_read_is_not_taken_for_one_without_runs(
        cli: Cli, data: Path) -> None:
    with unreadable(runs_dir(data)):
        result = cli("runs", "list")
    assert result.code == 2 and "no runs" not in result.out
    assert f"{runs_dir(data)}: cannot read it (Permission denied)" in result.err


@pytest.mark.parametrize("json", [[], ["--json"]], ids=["text", "json"])
def test_replay_of_a_run_whose_snapshot_it_may_not_read_names_it_and_the_fix(
        cli: Cli, data: Path, json: list[str]) -> None:
    # it was taken for a missing snapshot: "missing or unreadable; nothing to compare"
    run = runs_dir(data) / "dddd0000-0000-4000-8000-000000000001"
    with unreadable(run / "state.json"):
        result = cli("replay", "dddd", *json)
    assert result.code == 2 and result.out == "", (result.out, result.err)
    assert result.err == (f"error: {run / 'state.json'}: cannot read it (Permission "
                          f"denied); give your user access: chmod -R u+rwX '{run}' (or run "
                          "this as the user who owns it)\n")
