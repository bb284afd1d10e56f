"""`agent-canvas validate`, `export` and `layout` exit codes and output."""

from pathlib import Path

import pytest

from desktop.cli import main
from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir

EXAMPLE = examples_dir() / "plan-implement-review.flow.yaml"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_validate_ok(capsys: pytest.CaptureFixture) -> None:
    files = sorted(str(p) for p in examples_dir().glob("*.flow.yaml"))
    assert main(["validate", *files]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(files) and all(": OK (" in line for line in out)


def test_validate_invalid_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = write(tmp_path, "bad.flow.yaml", "name: x\nnodes:\n  - id: a\n    provider: gpt\n")
    assert main(["validate", str(EXAMPLE), str(bad)]) == 2
    captured = capsys.readouterr()
    assert f"{bad}:4: nodes[0].provider: unknown provider 'gpt'" in captured.err
    assert "OK" in captured.out and "bad.flow.yaml" not in captured.out


def test_validate_warnings_do_not_fail(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write(tmp_path, "w.flow.yaml", "name: x\nnodes: [{id: a}, {id: b}]\n")
    assert main(["validate", str(path)]) == 0
    captured = capsys.readouterr()
    assert "warning: nodes[1]" in captured.err
    assert "1 warning)" in captured.out


@pytest.mark.parametrize("arg", ["missing.flow.yaml", "."])
def test_validate_unreadable(arg: str, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["validate", arg]) == 2
    assert arg in capsys.readouterr().err


def test_export_formats(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["export", str(EXAMPLE), "--format", "mermaid"]) == 0
    assert capsys.readouterr().out.splitlines()[3] == "flowchart LR"
    out = tmp_path / "g.dot"
    assert main(["export", str(EXAMPLE), "--format", "dot", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith('digraph "Plan, implement, review"')
    bad = write(tmp_path, "bad.flow.yaml", "name: [\n")
    assert main(["export", str(bad)]) == 2
    assert "malformed YAML" in capsys.readouterr().err


def test_layout_in_place_and_to_output(tmp_path: Path) -> None:
    path = write(tmp_path, "w.flow.yaml",
                 "name: x\nnodes: [{id: a}, {id: b}]\nedges: [{from: a, to: b}]\n")
    out = tmp_path / "out.flow.yaml"
    assert main(["layout", str(path), "-o", str(out)]) == 0
    assert load_workflow(path).nodes[0].position is None
    assert load_workflow(out).node("b").position.x > 0
    assert main(["layout", str(path)]) == 0
    assert load_workflow(path) == load_workflow(out)
    assert main(["layout", str(tmp_path / "nope.flow.yaml")]) == 2


def test_layout_in_place_refuses_to_drop_comments(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    text = ("# why this workflow exists\nname: x\nnodes: [{id: a}, {id: b}]\n"
            "edges: [{from: a, to: b}]  # a hands to b\n")
    path = write(tmp_path, "w.flow.yaml", text)
    assert main(["layout", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "line 1" in err and "-o" in err and "--force" in err
    assert path.read_text(encoding="utf-8") == text  # untouched
    assert main(["layout", str(path), "-o", str(path)]) == 2  # the same file, named again
    out = tmp_path / "out.flow.yaml"
    assert main(["layout", str(path), "-o", str(out)]) == 0
    assert path.read_text(encoding="utf-8") == text
    assert main(["layout", str(path), "--force"]) == 0
    assert "#" not in path.read_text(encoding="utf-8")
    assert load_workflow(path).node("b").position.x > 0


@pytest.mark.parametrize("command", ["export", "layout"])
def test_export_and_layout_of_a_workflow_that_would_not_run_say_so_and_still_work(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert main([command, str(write(tmp_path, "ok.flow.yaml", text))]) == 0
    assert "warning" not in capsys.readouterr().err
    broken = text.replace("    from: planner\n    to: implementer\n",
                          "    from: planner\n    to: ghost\n", 1)
    assert broken != text
    path = write(tmp_path, "broken.flow.yaml", broken)
    assert main([command, str(path)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {command}: {path} has 1 error and would not run" in err
    assert "no node has id 'ghost'" in err and f"agent-canvas validate {path}" in err
