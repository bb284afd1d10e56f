"""A data folder whose runs folder cannot be made (under /proc, or behind a file named
``runs``), by --data-dir or $AGENT_CANVAS_DATA_DIR, is one line naming the folder and the
fix, exit 2, from every command that takes one (run, serve, fork, ...), not a traceback
from the first mkdir; the same for the --out folder of ``eval run``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_data_dir_file import COMMANDS

from desktop.cli.entry import main
from desktop.disk.paths import ENV_DATA_DIR
from tests.eval.evalkit import flow, suite

PROC = Path("/proc")
needs_proc = pytest.mark.skipif(not (PROC / "self").is_dir(), reason="no /proc here")
EXAMPLE = Path(__file__).resolve().parents[2] / "resources/examples/single-agent.flow.yaml"
NAME = st.text(alphabet="abcxyz019-_", min_size=1, max_size=8)


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    return err


@needs_proc
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_data_folder_under_proc_is_one_clear_line(
        command: str, how: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    chosen = "/proc/agent-canvas-data"
    argv = command.split()
    if how == "option":
        argv += ["--data-dir", chosen]
    else:
        monkeypatch.setenv(ENV_DATA_DIR, chosen)
    err = _refused(argv, capsys)
    assert f"the data folder {chosen} " in err and "cannot hold runs" in err
    assert "nothing can be made in /proc" in err
    assert ("give --data-dir a folder you can write to" if how == "option"
            else f"set {ENV_DATA_DIR} to a folder you can write to") in err


@needs_proc
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(NAME, max_size=3))
def test_run_under_proc_at_any_depth(parts: list[str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    chosen = str(PROC.joinpath("agent-canvas-data", *parts))
    err = _refused(["run", "--data-dir", chosen, str(EXAMPLE)], capsys)
    assert f"agent-canvas run: the data folder {chosen} (from --data-dir) cannot hold runs" \
        in err


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(NAME, max_size=2))
def test_a_file_where_the_runs_folder_goes(parts: list[str], tmp_path_factory,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path_factory.mktemp("data").joinpath(*parts)
    data.mkdir(parents=True, exist_ok=True)
    (data / "runs").write_text("not a folder")
    err = _refused(["run", "--data-dir", str(data), str(EXAMPLE)], capsys)
    assert f"the data folder {data} (from --data-dir) cannot hold runs: {data / 'runs'} " \
           "is a file" in err


def test_a_writable_missing_folder_is_fine_and_left_untouched(tmp_path: Path) -> None:
    from desktop.disk.paths import cannot_make

    assert cannot_make(tmp_path / "new" / "runs") is None
    assert list(tmp_path.iterdir()) == []  # the probe is gone


@needs_proc
@pytest.mark.parametrize("out", ["/proc/agent-canvas-eval", "/proc"])
def test_eval_out_that_cannot_be_made(out: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    say = [{"say": "done"}, {"done": True}]
    a, b = flow(tmp_path / "a.flow.yaml", say), flow(tmp_path / "b.flow.yaml", say)
    s = suite(tmp_path / "s.suite.yaml", [{"id": "a", "task": "t"}])
    assert main(["eval", "run", str(s), "--baseline", str(a), "--new", str(b),
                 "--out", out]) == 2
    err = capsys.readouterr().err
    assert f"--out {out}: cannot hold the results: nothing can be made in /proc" in err
    assert "nothing was run" in err and "Traceback" not in err
