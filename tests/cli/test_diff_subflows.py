"""`agent-canvas diff` compares what subflow nodes run: a changed subflow file is a
difference (exit 1), one that cannot be read is bad input (exit 2)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.graph.resources import examples_dir

TOP, SUB = "subflow-review.flow.yaml", "review.flow.yaml"


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """Two copies of the subflow example, each folder with its own review.flow.yaml."""
    tops = []
    for side in ("a", "b"):
        folder = tmp_path / side
        folder.mkdir()
        for name in (TOP, SUB):
            shutil.copy(examples_dir() / name, folder / name)
        tops.append(folder / TOP)
    return tops[0], tops[1]


def relabel(path: Path) -> None:
    path.write_text(path.read_text().replace("label: Tester", "label: QA Person"))


def test_equal_subflows_are_the_same(pair, capsys):
    assert main(["diff", str(pair[0]), str(pair[1])]) == 0
    assert capsys.readouterr().out == ""


def test_a_changed_subflow_file_is_a_difference_under_its_node(pair, capsys):
    old, new = pair
    relabel(new.parent / SUB)
    assert main(["diff", str(old), str(new)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"~ subflow review ({SUB}):",
        '    ~ node tester: label: "Tester" → "QA Person"',
    ]
    assert main(["diff", "--json", str(old), str(new)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["same"] is False
    [sub] = data["subflows"]
    assert (sub["node"], sub["old"], sub["new"]) == ("review", str(old.parent / SUB),
                                                     str(new.parent / SUB))
    assert sub["diff"]["nodes"]["changed"][0]["changes"] == [
        {"path": "label", "old": "Tester", "new": "QA Person"}]


@pytest.mark.parametrize("which", [0, 1])
def test_a_missing_subflow_file_is_bad_input(pair, which, capsys):
    gone = pair[which].parent / SUB
    gone.unlink()
    assert main(["diff", str(pair[0]), str(pair[1])]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    first = captured.err.splitlines()[0]
    assert first.startswith(f"{pair[which]}: nodes[1].flow: subflow file '{SUB}' of node "
                            f"'review' cannot be read (looked for {gone})")
    assert "the path is relative to this workflow's folder" in first
    assert "Traceback" not in captured.err


def test_a_broken_subflow_file_is_bad_input_naming_its_line(pair, capsys):
    (pair[1].parent / SUB).write_text("name: [\n")
    assert main(["diff", str(pair[0]), str(pair[1])]) == 2
    err = capsys.readouterr().err
    assert f"{pair[1].parent / SUB}:2: malformed YAML" in err


def test_subflows_in_a_cycle_are_bad_input(pair, capsys):
    sub = pair[1].parent / SUB
    sub.write_text(sub.read_text().replace(
        "  - id: tester\n", f"  - id: again\n    kind: subflow\n    flow: {TOP}\n"
        "    label: Again\n  - id: tester\n", 1))
    assert main(["diff", str(pair[0]), str(pair[1])]) == 2
    assert f"subflows form a cycle: {TOP} uses {SUB} uses {TOP}" in capsys.readouterr().err


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                    *args], check=True, capture_output=True)


def test_a_version_in_git_is_compared_with_its_subflows_of_that_version(pair, capsys):
    repo = pair[0].parent
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "first")
    relabel(repo / SUB)
    assert main(["diff", f"HEAD:{repo / TOP}", str(repo / TOP)]) == 1
    assert capsys.readouterr().out.splitlines()[1] == \
        '    ~ node tester: label: "Tester" → "QA Person"'
    git(repo, "commit", "-qam", "second")
    assert main(["diff", f"HEAD:{repo / TOP}", str(repo / TOP)]) == 0
