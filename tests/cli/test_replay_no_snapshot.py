"""`replay` of a run killed before its first snapshot (an events.jsonl, no state.json)
folds the log and says there is no snapshot yet: no fault, exit 0. A state.json that is
there and no snapshot still differs (exit 1)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import orjson
import pytest
import yaml

from desktop.cli import main


def _cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
         *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def killed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(data folder, run folder) of a run as a kill -9 before its first snapshot leaves it."""
    flow = tmp_path / "one.flow.yaml"
    flow.write_text(yaml.safe_dump({
        "name": "one", "task": "t", "edges": [],
        "nodes": [{"id": "a", "label": "A", "entry": True}],
        "nodeConfigs": {"a": {"script": [{"say": "hi"}, {"done": True}]}}}), encoding="utf-8")
    data = tmp_path / "data"
    code, _out, err = _cli(capsys, monkeypatch, "run", str(flow), "--data-dir", str(data))
    assert code == 0, err
    [folder] = (data / "runs").iterdir()
    log = folder / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-2]))  # its last events never written
    for derived in ("state.json", "events.idx"):
        (folder / derived).unlink(missing_ok=True)
    return data, folder


def test_replay_of_a_run_without_snapshot_folds_it_and_exits_0(
        killed: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, folder = killed
    events = len((folder / "events.jsonl").read_bytes().splitlines())
    code, out, err = _cli(capsys, monkeypatch, "replay", folder.name[:8],
                          "--data-dir", str(data))
    assert (code, err) == (0, ""), out + err
    assert out.startswith(f"folds cleanly: {events} events; no snapshot yet")
    code, out, err = _cli(capsys, monkeypatch, "replay", folder.name[:8], "--json",
                          "--data-dir", str(data))
    body = orjson.loads(out)
    assert (code, body["snapshot"], body["events"], body["skipped"]) == (0, False, events, [])


def test_replay_of_a_state_json_that_is_no_snapshot_still_differs(
        killed: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, folder = killed
    (folder / "state.json").write_text("[]", encoding="utf-8")
    code, out, _ = _cli(capsys, monkeypatch, "replay", folder.name[:8],
                        "--data-dir", str(data))
    assert code == 1 and "is not a run snapshot; nothing to compare" in out


def test_replay_help_says_what_each_exit_code_means(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "0 the same, or no state.json yet" in text
