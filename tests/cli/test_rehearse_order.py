"""``rehearse`` given a workflow that does not load and no replies file reports the
workflow (the file the user named) first, then the missing replies; exit 2, no run."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_kit import make_cli

from desktop.disk.paths import runs_dir

BROKEN = {
    "not YAML": ("this: [is junk\n", ":2: malformed YAML"),
    "unknown field": ("version: 1\nname: x\nnodes: [{id: a, bogus: 1}]\n",
                      ":3: nodes[0].bogus: unknown field 'bogus'"),
}


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_a_broken_workflow_is_reported_before_its_missing_replies(
        broken: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    flow = tmp_path / "demo.flow.yaml"
    text, problem = BROKEN[broken]
    flow.write_text(text)
    data = tmp_path / "data"
    said = make_cli(capsys, monkeypatch, ["--data-dir", str(data)])("rehearse", str(flow))
    assert said.code == 2 and "Traceback" not in said.err
    lines = said.err.splitlines()
    assert lines[0].startswith(f"{flow}{problem}"), said.err
    assert lines[1] == f"{flow}: invalid workflow (1 error)"
    replies = tmp_path / "demo.rehearsal.yaml"
    assert lines[2].startswith(f"error: {replies}: cannot read"), said.err
    assert not runs_dir(data).exists() or not any(runs_dir(data).iterdir())


def test_a_broken_workflow_with_its_replies_is_still_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    flow = tmp_path / "demo.flow.yaml"
    flow.write_text(BROKEN["unknown field"][0])
    (tmp_path / "demo.rehearsal.yaml").write_text("agents: {}\n")
    said = make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])(
        "rehearse", str(flow))
    assert said.code == 2
    assert said.err.splitlines()[-1] == f"{flow}: invalid workflow (1 error)"
