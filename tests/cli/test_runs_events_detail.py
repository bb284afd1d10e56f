"""`agent-canvas runs events` says what each approval and tool event was about."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from desktop.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "service" / \
    "approve-a-command.flow.yaml"


def test_approval_and_tool_events_have_a_detail(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("approve\ndeny no need to print it\n"))
    assert main(["run", str(EXAMPLE), "--data-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    run_id = next((tmp_path / "runs").iterdir()).name
    monkeypatch.setenv("COLUMNS", "240")
    assert main(["runs", "events", run_id, "--data-dir", str(tmp_path), "--limit", "200"]) == 0
    rows = {}
    for line in capsys.readouterr().out.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) >= 6 and cells[1].isdigit():
            rows.setdefault(cells[3], []).append(cells[5])
    for kind in ("tool.proposed", "approval.requested", "approval.resolved", "tool.completed"):
        assert rows.get(kind) and all(rows[kind]), f"{kind}: {rows.get(kind)}"
    assert any("echo built > build.txt" in d for d in rows["approval.requested"])
    assert any("refused by a person in the terminal (no need to print it)" in d
               for d in rows["approval.resolved"])
    assert any("approved" in d for d in rows["approval.resolved"])
    assert any("command" in d for d in rows["tool.completed"])
