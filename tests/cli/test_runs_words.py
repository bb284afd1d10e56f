"""``runs list`` and ``runs show`` speak as the app does, and a pipe gets whole lines."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from desktop.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "examples" / "single-agent.flow.yaml"


@pytest.fixture
def data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    doc = yaml.safe_load(EXAMPLE.read_text())
    doc["name"] = "A workflow whose name is far too long to fit in eighty columns of a pipe"
    flow = tmp_path / "long.flow.yaml"
    flow.write_text(yaml.safe_dump(doc))
    assert main(["run", str(flow), "--data-dir", str(tmp_path / "data")]) == 0
    capsys.readouterr()
    return tmp_path / "data"


def test_a_piped_run_list_keeps_each_run_on_one_line(data: Path, capsys) -> None:
    assert main(["runs", "list", "--data-dir", str(data)]) == 0
    lines = capsys.readouterr().out.splitlines()
    [row] = [line for line in lines if "completed" in line]
    assert "far too long to fit in eighty columns of a pipe" in row and len(row) > 80


def test_runs_show_says_done_where_the_app_does(data: Path, capsys) -> None:
    run = next((data / "runs").iterdir()).name
    assert main(["runs", "show", run, "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    [row] = [line for line in out.splitlines() if line.startswith("│ Implementer")]
    assert "│ done " in row and "idle" not in row
