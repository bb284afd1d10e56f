"""A run whose nodes worked in a plain folder (no git worktree) has no result to apply;
`runs result` (and the app's Result tab, which shows the same words) says where its
files are and where each turn's changes are, not only that there is no result."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.cli import main
from desktop.graph.resources import examples_dir


def test_runs_result_names_the_folder_the_nodes_worked_in(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    assert main(["run", str(examples_dir() / "single-agent.flow.yaml"),
                 "--data-dir", str(data)]) == 0
    [folder] = (data / "runs").iterdir()
    assert (folder / "workspace" / "README.md").is_file()  # what the agent wrote
    capsys.readouterr()
    assert main(["runs", "result", folder.name[:8], "--data-dir", str(data)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "nothing to apply" in err
    assert f"worked directly in {folder / 'workspace'}, where their files are" in err
    assert f"diff.patch in {folder / 'agents'}" in err
