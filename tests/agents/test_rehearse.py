"""``agent-canvas rehearse`` runs a workflow's real CLIs on replies written beside it."""

import json
from pathlib import Path

import pytest

from desktop.cli import main

pytestmark = pytest.mark.timeout(300)

FLOW = """\
name: demo
task: Write proof.txt
nodes:
  - {id: coder, label: Coder, provider: codex, entry: true}
  - {id: reviewer, label: Reviewer, provider: claude}
nodeConfigs: {coder: {}, reviewer: {}}
edges:
  - {from: coder, to: reviewer}
"""
REPLIES = """\
agents:
  coder: [{shell: "echo done > proof.txt"}, {text: "Wrote proof.txt."}]
  reviewer: [{text: "Looks right."}]
"""


def test_rehearse_runs_the_workflow_on_scripted_replies(agents_bin, tmp_path: Path, capsys,
                                                        restore_registry):
    (tmp_path / "demo.flow.yaml").write_text(FLOW)
    (tmp_path / "demo.rehearsal.yaml").write_text(REPLIES)
    data = tmp_path / "data"
    code = main(["rehearse", str(tmp_path / "demo.flow.yaml"), "--data-dir", str(data),
                 "--agents-bin", str(agents_bin), "--json"])
    assert code == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()
              if line.startswith("{")]
    finals = [e["text"] for e in events if e["type"] == "message.assistant.final"]
    assert finals == ["Wrote proof.txt.", "Looks right."]


def test_rehearse_without_replies_names_the_file(tmp_path: Path, capsys):
    (tmp_path / "demo.flow.yaml").write_text(FLOW)
    assert main(["rehearse", str(tmp_path / "demo.flow.yaml")]) == 2
    assert "demo.rehearsal.yaml" in capsys.readouterr().err
