"""`agent-canvas verify run RUN` trusts a runner record that keeps the rules *and* hashes
to what the run's log recorded when it was written: an edit that keeps the rules
(`verify runner` passes it) is caught, as are a recorded record that is gone and one the
log never recorded."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from desktop.cli import main
from desktop.graph.resources import examples_dir
from desktop.store.runner import NEWLINE, canonical

EXAMPLE = examples_dir() / "single-agent.flow.yaml"


@pytest.fixture
def ran(tmp_path: Path, capsys: pytest.CaptureFixture) -> tuple[Path, Path]:
    """A finished run of the example: (data folder, its runner.json)."""
    data = tmp_path / "data"
    (tmp_path / "ws").mkdir()
    assert main(["run", str(EXAMPLE), "--workspace", str(tmp_path / "ws"),
                 "--data-dir", str(data)]) == 0
    capsys.readouterr()
    (record,) = (data / "runs").glob("*/agents/*/runner.json")
    return data, record


def _verify(data: Path, capsys: pytest.CaptureFixture, *runs: str) -> tuple[int, list[dict]]:
    code = main(["verify", "run", *runs, "--data-dir", str(data)])
    return code, [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]


def _run_id(record: Path) -> str:
    return record.parents[2].name


def test_a_run_as_written_verifies(ran: tuple[Path, Path], capsys) -> None:
    data, record = ran
    code, (line,) = _verify(data, capsys, _run_id(record)[:8])
    assert code == 0 and line["ok"] is True
    assert line["runner_hash"] == line["recorded_hash"] and line["run"] == _run_id(record)
    assert line["file"] == record.relative_to(record.parents[2]).as_posix()


def test_an_edit_that_keeps_the_rules_is_caught(ran: tuple[Path, Path], capsys) -> None:
    data, record = ran
    value = orjson.loads(record.read_bytes())
    value["platform"]["os"] = "darwin" if value["platform"]["os"] != "darwin" else "linux"
    record.write_bytes(canonical(value) + NEWLINE)
    assert main(["verify", "runner", str(record)]) == 0, "the rules alone pass it"
    capsys.readouterr()
    code, (line,) = _verify(data, capsys, _run_id(record))
    assert code == 3 and line["ok"] is False
    (violation,) = line["violations"]
    assert violation["rule_id"] == "RECORDED" and "changed since" in violation["message"]


def test_a_record_gone_and_one_never_recorded_are_named(ran: tuple[Path, Path],
                                                        capsys) -> None:
    data, record = ran
    stray = record.parents[1] / "20990101-0000000000-1" / "runner.json"
    stray.parent.mkdir()
    stray.write_bytes(record.read_bytes())
    record.unlink()
    code, lines = _verify(data, capsys, _run_id(record))
    assert code == 3
    messages = {line["file"]: line["violations"][0]["message"] for line in lines}
    assert "it is gone" in messages[record.relative_to(record.parents[2]).as_posix()]
    assert "recorded no runner record" in messages[
        stray.relative_to(record.parents[2]).as_posix()]


def test_an_unknown_run_is_exit_1_and_the_others_are_still_checked(
        ran: tuple[Path, Path], capsys) -> None:
    data, record = ran
    code = main(["verify", "run", "ffffffff", _run_id(record), "--data-dir", str(data)])
    captured = capsys.readouterr()
    assert code == 1 and "ffffffff" in captured.err
    assert orjson.loads(captured.out)["ok"] is True
