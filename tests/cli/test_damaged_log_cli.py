"""`fork` and `runs events` on a run whose events.jsonl is gone, emptied or overwritten
with junk: the same refusal as `runs show` (the log's path and that it is the run's
record), exit 2, and the run folder as it was; not an empty table or "run  has no point
between turns" with exit 0."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_kit import Cli, make_cli
from forkkit import ROOT, Recorded, record
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.store.jsonl import EVENTS_FILE

FLOW = ROOT / "resources" / "examples" / "single-agent.flow.yaml"
RUN = "{run}"
COMMANDS = [["fork", RUN, "--list"], ["fork", RUN, "--at", "3", "--dry-run"],
            ["fork", RUN, "--at", "3"], ["runs", "events", RUN], ["runs", "show", RUN]]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return record(FLOW, tmp_path_factory.mktemp("data"))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        source: Recorded) -> Cli:
    return make_cli(capsys, monkeypatch, ["--data-dir", str(source.run_dir.parent.parent)])


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _damaged(source: Recorded, where: Path, log: bytes | None) -> Path:
    """A copy of the recorded run in ``where`` whose log holds ``log`` (None: no log)."""
    folder = where / "copy of the run"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(source.run_dir, folder)
    (folder / "events.idx").unlink(missing_ok=True)
    if log is None:
        (folder / EVENTS_FILE).unlink()
    else:
        (folder / EVENTS_FILE).write_bytes(log)
    return folder


def _refused(cli: Cli, source: Recorded, folder: Path, command: list[str], said: str) -> None:
    runs = source.run_dir.parent  # where a fork would be made
    before, runs_before = _files(folder), sorted(p.name for p in runs.iterdir())
    result = cli(*(str(folder) if arg == RUN else arg for arg in command))
    assert result.code == 2, (command, result.out, result.err)
    assert said in result.err and str(folder / EVENTS_FILE) in result.err, result.err
    assert "restore it from a copy" in result.err and "Traceback" not in result.err
    assert _files(folder) == before, "the command changed the run's files"
    assert sorted(p.name for p in runs.iterdir()) == runs_before, "the command made a run"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c).replace(RUN, "RUN"))
@pytest.mark.parametrize(("log", "said"), [
    (None, "is missing"),
    (b"", "is empty, but state.json has seen"),
    (b"\x00\xff garbage\n\x89PNG\r\n", "no line of it is an event"),
], ids=["missing", "empty", "binary"])
def test_a_log_that_is_gone_or_junk_is_refused_naming_it(
        cli: Cli, source: Recorded, tmp_path: Path, command: list[str], log: bytes | None,
        said: str) -> None:
    _refused(cli, source, _damaged(source, tmp_path, log), command, said)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(junk=st.binary(min_size=1, max_size=400).filter(lambda b: b"{" not in b and
                                                         bool(b.strip())),
       command=st.sampled_from(COMMANDS))
def test_any_junk_in_place_of_the_log_is_refused(cli: Cli, source: Recorded, tmp_path: Path,
                                                  junk: bytes, command: list[str]) -> None:
    # without a "{" no line can be an event, whatever else the bytes are
    _refused(cli, source, _damaged(source, tmp_path, junk), command,
             "no line of it is an event")
