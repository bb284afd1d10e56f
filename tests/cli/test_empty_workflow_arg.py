"""An empty workflow FILE (``validate "$FLOW"`` with FLOW unset) is a usage error naming
the argument, for every command that reads a workflow: it is not read as the current
folder and reported with no file name (``: INVALID``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli.entry import main

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / \
    "single-agent.flow.yaml"
COMMANDS = {
    "validate": (["validate"], "FILE"),
    "validate, after a good file": (["validate", str(EXAMPLE)], "FILE"),
    "export": (["export", "-f", "mermaid"], "FILE"),
    "layout": (["layout"], "FILE"),
    "run": (["run"], "FILE"),
    "rehearse": (["rehearse"], "FILE"),
    "diff OLD": (["diff", "--json"], "OLD"),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blank=st.text(alphabet=" \t", max_size=2))
def test_an_empty_workflow_file_is_refused_by_name(
        name: str, blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    here = tmp_path / "here"
    here.mkdir(exist_ok=True)
    monkeypatch.chdir(here)
    monkeypatch.setenv("AGENT_CANVAS_DATA_DIR", str(tmp_path / "data"))
    words, argument = COMMANDS[name]
    args = [*words, blank, str(EXAMPLE)] if argument == "OLD" else [*words, blank]
    with pytest.raises(SystemExit) as exc:
        main(args)
    said = capsys.readouterr()
    assert exc.value.code == 2
    assert said.err.splitlines()[-1] == (f"agent-canvas {words[0]}: error: argument "
                                         f"{argument}: is empty; give the path of a "
                                         "*.flow.yaml file")
    assert "INVALID" not in said.err and said.out == ""
    assert list(here.iterdir()) == [] and not (tmp_path / "data").exists()


@pytest.mark.parametrize("blank", ["", " ", "\t"])
def test_an_empty_stream_file_to_import_is_refused_by_name(
        blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["import", "--provider", "claude", "--data-dir", str(tmp_path / "data"), blank])
    said = capsys.readouterr()
    assert exc.value.code == 2
    assert said.err.splitlines()[-1] == ("agent-canvas import: error: argument FILE: is "
                                         "empty; give the file the agent's stdout (JSON "
                                         "lines) was saved in")
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("blank", ["", " ", "\t"])
def test_an_empty_workspace_is_refused_not_taken_for_none(
        blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``run --workspace "$REPO"`` with REPO unset ran in the scratch folder."""
    monkeypatch.setenv("AGENT_CANVAS_DATA_DIR", str(tmp_path / "data"))
    with pytest.raises(SystemExit) as exc:
        main(["run", str(EXAMPLE), "--workspace", blank])
    said = capsys.readouterr()
    assert exc.value.code == 2
    assert said.err.splitlines()[-1].startswith(
        "agent-canvas run: error: argument --workspace: is empty; name the folder")
    assert not (tmp_path / "data").exists()
