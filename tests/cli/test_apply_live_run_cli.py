"""`runs apply` of a run an engine is still working on: refused, with or without
--check, saying why and what to do, and nothing lands; once no engine holds it (ended,
or interrupted), its result applies."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from cli_kit import Cli, git, make_cli
from test_runs_apply_cli import the_example_on

from desktop.store.jsonl import EVENTS_FILE
from desktop.store.runs import hold_engine_lock
from desktop.store.snapshot import STATE_FILE


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> Cli:
    return make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "lib.py").write_text("def helper():\n    return 1\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "init")
    return path


def still_running(folder: Path) -> None:
    """Make a finished run's folder read as one whose engine has not ended it yet: its
    log without the last event (run.completed), and no snapshot saying otherwise."""
    log = folder / EVENTS_FILE
    lines = log.read_bytes().splitlines(keepends=True)
    assert b'"run.completed"' in lines[-1]
    log.write_bytes(b"".join(lines[:-1]))
    (folder / STATE_FILE).unlink(missing_ok=True)


def test_a_run_still_running_is_not_applied_and_nothing_lands(
        cli: Cli, repo: Path, tmp_path: Path) -> None:
    assert cli("run", str(the_example_on(repo, tmp_path))).code == 0
    [listed] = orjson.loads(cli("runs", "list", "--json").out)
    run8 = listed["id"][:8]
    folder = tmp_path / "data" / "runs" / listed["id"]
    still_running(folder)
    status = git(repo, "status", "--porcelain")
    with hold_engine_lock(folder):  # as the `agent-canvas run` still running it does
        for extra in ([], ["--check"], ["--branch", "agent/result"]):
            said = cli("runs", "apply", run8, *extra)
            assert said.code == 2, (extra, said)
            assert f"run {run8} is still running" in said.err
            assert "wait for the run to end, or stop it" in said.err
        assert "still running" not in cli("runs", "result", run8).err  # shown, not applied
    assert git(repo, "status", "--porcelain") == status
    assert git(repo, "branch", "--list", "agent/result") == ""
    assert not (repo / "num_utils.py").exists()
    # no engine holds it now: interrupted, its branches stay where they are
    took = cli("runs", "apply", run8)
    assert took.code == 0 and "applied 4 files" in took.out, took


def test_a_run_started_before_its_worktrees_says_it_is_running_not_that_it_has_none(
        cli: Cli, repo: Path, tmp_path: Path) -> None:
    assert cli("run", str(the_example_on(repo, tmp_path))).code == 0
    [listed] = orjson.loads(cli("runs", "list", "--json").out)
    folder = tmp_path / "data" / "runs" / listed["id"]
    log = folder / EVENTS_FILE
    lines = log.read_bytes().splitlines(keepends=True)
    started = next(i for i, line in enumerate(lines) if b'"run.started"' in line)
    log.write_bytes(b"".join(lines[:started + 1]))  # no node has a worktree yet
    (folder / STATE_FILE).unlink(missing_ok=True)
    with hold_engine_lock(folder):
        said = cli("runs", "apply", listed["id"][:8], "--check")
    assert said.code == 2 and "is still running" in said.err, said
