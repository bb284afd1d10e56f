"""A run folder whose log is empty: what a Ctrl-C leaves when it comes before the run
recorded its first event. `runs list` keeps its table narrow, `runs show` says why the
run cannot be read, and `resume` says there is nothing to resume (not to restore a log
that never held anything)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.cli import main

RUN_ID = "0a1b2c3d-0000-4000-8000-000000000000"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data folder holding one run folder with an empty events.jsonl."""
    run = tmp_path / "runs" / RUN_ID
    run.mkdir(parents=True)
    (run / "events.jsonl").write_bytes(b"")
    return tmp_path


def test_list_shows_a_short_status_and_where_the_reason_is(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "list", "--data-dir", str(data)]) == 0
    out = capsys.readouterr()
    row = next(line for line in out.out.splitlines() if RUN_ID[:8] in line)
    assert "unreadable" in row and "run.created" not in row and str(data) not in row
    assert f"({RUN_ID[:8]})" in out.err and "runs show" in out.err


def test_show_says_the_run_stopped_before_it_began(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "show", RUN_ID[:8], "--data-dir", str(data)]) == 2
    assert "stopped before it recorded anything" in capsys.readouterr().err


def test_resume_says_there_is_nothing_to_resume(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resume", RUN_ID[:8], "--data-dir", str(data)]) == 2
    err = capsys.readouterr().err
    assert "nothing to resume" in err and "start the workflow again" in err
    assert "restore it from a copy" not in err
