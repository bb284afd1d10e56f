"""`agent-canvas diff`: exit codes like diff's, readable lines, JSON for scripts."""

import json
import shutil
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.graph.io import load_workflow, save_workflow
from desktop.graph.resources import examples_dir

EXAMPLE = examples_dir() / "plan-implement-review.flow.yaml"


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """The example, and a copy with a node added, an edge gone, a model set and nodes moved."""
    old = tmp_path / "old.flow.yaml"
    shutil.copy(EXAMPLE, old)
    doc = load_workflow(old)
    for node in doc.nodes:
        node.position.x += 500
    doc.nodes.append(doc.nodes[0].model_copy(update={"id": "tester", "label": "Tester",
                                                     "entry": False}))
    doc.edges = [e for e in doc.edges if e.id != "reviewer-reports-to-planner"]
    doc.node_configs["implementer"].model = "gpt-5"
    new = tmp_path / "new.flow.yaml"
    save_workflow(doc, new)
    return old, new


def test_the_same_workflow_exits_0_and_prints_nothing(capsys: pytest.CaptureFixture) -> None:
    assert main(["diff", str(EXAMPLE), str(EXAMPLE)]) == 0
    assert capsys.readouterr().out == ""


def test_differences_exit_1_one_line_each(pair, capsys: pytest.CaptureFixture) -> None:
    old, new = pair
    assert main(["diff", str(old), str(new)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "+ node tester (Tester)",
        '~ node implementer: config.model: unset → "gpt-5"',
        '- edge reviewer → planner (report, "report")',
    ]


def test_json_gives_the_same_for_scripts(pair, capsys: pytest.CaptureFixture) -> None:
    old, new = pair
    assert main(["diff", "--json", str(new), str(old)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["same"] is False
    assert data["nodes"] == {
        "added": [], "removed": [{"id": "tester", "label": "Tester", "changes": []}],
        "changed": [{"id": "implementer", "label": "Implementer", "changes": [
            {"path": "config.model", "old": "gpt-5", "new": None}]}]}
    assert data["edges"]["added"] == [{
        "id": "reviewer-reports-to-planner", "from": "reviewer", "to": "planner",
        "type": "report", "label": "report", "changes": []}]
    assert data["edges"]["removed"] == data["edges"]["changed"] == data["workflow"] == []


def test_json_of_the_same_says_so(capsys: pytest.CaptureFixture) -> None:
    assert main(["diff", "--json", str(EXAMPLE), str(EXAMPLE)]) == 0
    assert json.loads(capsys.readouterr().out)["same"] is True


@pytest.mark.parametrize(("text", "expected"), [
    ("name: x\nnodes:\n  - id: a\n    provider: gpt\n",
     "bad.flow.yaml:4: nodes[0].provider: unknown provider 'gpt'"),
    ("name: [\n", "bad.flow.yaml:2: malformed YAML"),
])
def test_a_broken_file_exits_2_naming_file_and_field(
        tmp_path: Path, capsys: pytest.CaptureFixture, text: str, expected: str) -> None:
    bad = tmp_path / "bad.flow.yaml"
    bad.write_text(text, encoding="utf-8")
    assert main(["diff", str(EXAMPLE), str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(str(tmp_path / expected))
    assert "Traceback" not in captured.err


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["diff", str(tmp_path / "nope.flow.yaml"), str(EXAMPLE)]) == 2
    assert capsys.readouterr().err.strip() == (f"{tmp_path / 'nope.flow.yaml'}: file not found"
                                               " — check the path and the spelling")
