"""``import`` and ``normalize`` given a folder where the agent's stdout file belongs say
it is a folder (not "no such file", not "cannot read (Is a directory)"), in one line,
exit 2, and make no run."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_kit import make_cli

from desktop.disk.paths import runs_dir


@pytest.mark.parametrize("command", [["import"], ["normalize"]], ids=" ".join)
def test_a_folder_given_for_the_stream_is_said_to_be_a_folder(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "recorded streams"
    folder.mkdir()
    data = tmp_path / "data"
    extra = ["--data-dir", str(data)] if command == ["import"] else []
    said = make_cli(capsys, monkeypatch, extra)(*command, str(folder), "--provider", "claude")
    assert said.code == 2 and said.out == ""
    assert said.err == (f"error: {folder}: is a folder, not a file; give the file the "
                        "agent's stdout (JSON lines) was saved in\n")
    assert not runs_dir(data).exists() or not any(runs_dir(data).iterdir())


@pytest.mark.parametrize("command", [["import"], ["normalize"]], ids=" ".join)
def test_a_missing_stream_is_said_to_be_missing(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    extra = ["--data-dir", str(tmp_path / "data")] if command == ["import"] else []
    gone = tmp_path / "gone.jsonl"
    said = make_cli(capsys, monkeypatch, extra)(*command, str(gone), "--provider", "codex")
    assert said.code == 2 and said.err == f"error: {gone}: no such file\n"
