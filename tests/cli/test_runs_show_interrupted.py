"""`runs show` of a run whose engine died in the middle of turns (kill -9): no engine
holds it, so no node row may say a turn runs; the turns were cut short and resuming takes
them again. The run's line says interrupted, as `runs list` does."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import orjson
import pytest
import yaml

from desktop.cli import main
from desktop.views.runs import open_run


def _cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
         *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _flow(tmp_path: Path) -> Path:
    doc = {"name": "two", "task": "t",
           "nodes": [{"id": "lead", "label": "Lead", "entry": True},
                     {"id": "a", "label": "Worker"}],
           "nodeConfigs": {"lead": {"script": [{"handoff": {"to": "a", "message": "go"}},
                                               {"say": "sent"}]},
                           "a": {"script": [{"say": "working"}, {"done": True}]}},
           "edges": [{"id": "e", "from": "lead", "to": "a", "type": "handoff"}]}
    path = tmp_path / "two.flow.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def test_runs_show_of_a_killed_run_says_its_turn_was_cut_short_not_running(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    code, _out, err = _cli(capsys, monkeypatch, "run", str(_flow(tmp_path)),
                           "--data-dir", str(data))
    assert code == 0, err
    [folder] = (data / "runs").iterdir()
    # the log as a kill -9 leaves it: it ends just after Worker's turn started
    log = folder / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    started = [i for i, line in enumerate(lines)
               if (e := orjson.loads(line))["type"] == "turn.status"
               and e.get("status") == "started"]
    cut = started[1]  # Lead's turn, then Worker's
    log.write_bytes(b"".join(lines[:cut + 1]))
    for derived in ("state.json", "events.idx"):
        (folder / derived).unlink(missing_ok=True)
    state = open_run(folder)
    assert state.interrupted
    assert [state.nodes[n].label for n in state.running_turns] == ["Worker"]
    code, out, _ = _cli(capsys, monkeypatch, "runs", "show", folder.name[:8],
                        "--data-dir", str(data))
    assert code == 0
    text = " ".join(out.split())
    assert f"run {folder.name} interrupted" in text
    assert "turn running" not in text, out
    row = next(line for line in out.splitlines() if "Worker" in line)
    assert "interrupted (turn cut short, retaken on resume)" in " ".join(row.split())
