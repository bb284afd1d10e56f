"""A run the terminal left paused (stdin ended while a request waited) is listed and
shown as paused, with what it waits for and how to resume it; a run whose engine died
in the middle of the same turn is interrupted. The log tells them apart: letting go
settles the turn (its request denied by the engine, the turn cancelled), dying does not."""

from __future__ import annotations

import io
import shlex
import sys
from pathlib import Path

import orjson
import pytest
import yaml

from desktop.cli import main
from desktop.views.paused import left_paused
from desktop.views.runs import open_run


def _flow(tmp_path: Path) -> Path:
    doc = {"name": "gated", "task": "t", "edges": [],
           "nodes": [{"id": "a", "label": "Builder", "entry": True,
                      "permissions": {"cliPermissionsMode": "gated"}}],
           "nodeConfigs": {"a": {"script": [{"shell": "echo one"}, {"say": "done"}]}}}
    path = tmp_path / "gated.flow.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
         *args: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def left(tmp_path: Path, capsys: pytest.CaptureFixture[str],
         monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A run left paused at its approval: (data folder, run folder)."""
    data = tmp_path / "data with a space"
    code, _out, err = _cli(capsys, monkeypatch, "run", str(_flow(tmp_path)),
                           "--data-dir", str(data))
    assert code == 3 and "is paused" in err
    [folder] = (data / "runs").iterdir()
    # the command it names finds the run in the data folder it was given
    assert f"`agent-canvas resume {folder.name[:8]} --data-dir '{data}'`" in err
    return data, folder


def test_a_run_left_paused_is_listed_and_shown_as_paused_with_what_it_waits_for(
        left: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, folder = left
    run8 = folder.name[:8]
    code, out, _ = _cli(capsys, monkeypatch, "runs", "list", "--json", "--data-dir", str(data))
    [row] = orjson.loads(out)
    assert (row["status"], row.get("detached")) == ("paused", True)
    code, out, _ = _cli(capsys, monkeypatch, "runs", "show", run8, "--data-dir", str(data))
    assert code == 0
    text = " ".join(out.split())
    assert f"run {folder.name} paused" in text and "interrupted" not in text
    assert "paused, no engine holds it: waiting for input and no commands are left on " \
        "stdin" in text
    assert "waits for Builder's approval" in text and "echo one" in text
    said = f"agent-canvas resume {run8} --data-dir '{data}'"
    assert f"resume with `{said}`" in text
    code, out, _ = _cli(capsys, monkeypatch, "runs", "show", run8, "--json",
                        "--data-dir", str(data))
    body = orjson.loads(out)
    assert body["displayStatus"] == "paused" and not body["interrupted"]
    assert body["paused"]["resume"] == said
    [waits] = body["paused"]["waitsFor"]
    assert waits["node"] == "Builder" and waits["kind"] == "tool"
    # what it says holds, as printed: resuming asks again, and the answer finishes the run
    code, out, err = _cli(capsys, monkeypatch, *shlex.split(said)[1:], stdin="approve\n")
    assert code == 0, out + err
    assert open_run(folder).status == "completed"


def test_a_run_whose_engine_died_in_that_turn_is_interrupted(
        left: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, folder = left
    # the same run as a kill -9 would leave it: the log ends while the request waits
    log = folder / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines)
               if orjson.loads(line)["type"] == "run.paused")
    log.write_bytes(b"".join(lines[:cut]))
    for derived in ("state.json", "events.idx"):
        (folder / derived).unlink(missing_ok=True)
    state = open_run(folder)
    assert state.interrupted and not left_paused(state)
    code, out, _ = _cli(capsys, monkeypatch, "runs", "list", "--json", "--data-dir", str(data))
    [row] = orjson.loads(out)
    assert row["status"] == "interrupted" and not row.get("detached")
    code, out, _ = _cli(capsys, monkeypatch, "runs", "show", folder.name[:8],
                        "--data-dir", str(data))
    assert code == 0
    assert "interrupted" in out and "no engine holds it" not in out


def test_the_app_history_lists_it_as_paused_and_not_live(left: tuple[Path, Path]) -> None:
    # the app's run history reads the same list without a service: a paused run no
    # engine holds is no live run to follow
    from desktop.ui.run.history import load_history

    data, folder = left
    [row] = load_history(data)
    assert (row.path.name, row.status, row.live) == (folder.name, "paused", False)
