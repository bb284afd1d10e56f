"""A node's workspace that is a file (or lies under one) is an error validate names at its
line, as the run could never make the folder."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from desktop.cli.entry import main
from desktop.graph.validate import check_file

EXAMPLE = Path(__file__).resolve().parents[2] / "resources/examples/single-agent.flow.yaml"


def workflow_with(folder: Path, workspace: str) -> Path:
    path = folder / "w.flow.yaml"
    path.write_text(EXAMPLE.read_text(encoding="utf-8").replace(
        "    instructions:", f"    workspace: {workspace}\n    instructions:", 1))
    return path


@pytest.mark.parametrize("relative", [False, True])
@pytest.mark.parametrize("under", ["", "/sub", "/sub/deeper"])
def test_a_workspace_that_is_or_lies_under_a_file_is_an_error(
        tmp_path: Path, relative: bool, under: str) -> None:
    (tmp_path / "afile").write_text("not a folder")
    named = ("afile" if relative else str(tmp_path / "afile")) + under
    path = workflow_with(tmp_path, named)
    doc, problems = check_file(str(path))
    assert doc is not None
    [problem] = [p for p in problems if p.location == "nodeConfigs.implementer.workspace"]
    assert problem.is_error and problem.file == str(path) and problem.line == 20
    assert repr(named) in problem.message and problem.message.endswith("not a folder")
    if under:
        assert f"inside {tmp_path / 'afile'}, which is a file" in problem.message
    assert "name a folder" in problem.hint


@pytest.mark.parametrize("workspace", ["ws", "ws/missing/deeper", "."])
def test_folders_and_missing_folders_are_fine(tmp_path: Path, workspace: str) -> None:
    (tmp_path / "ws").mkdir()
    _doc, problems = check_file(str(workflow_with(tmp_path, workspace)))
    assert [p for p in problems if p.location.endswith("workspace")] == []


def test_validate_command_says_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("")
    path = workflow_with(tmp_path, str(tmp_path / "afile"))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:20: nodeConfigs.implementer.workspace: '{tmp_path / 'afile'}' is a file, " \
           "not a folder" in err


def test_the_workflows_workspace_that_is_a_file_is_an_error_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder")
    path = tmp_path / "w.flow.yaml"
    path.write_text(EXAMPLE.read_text(encoding="utf-8").replace(
        "mode:", "workspace: afile\nmode:", 1))
    doc, problems = check_file(str(path))
    assert doc is not None and doc.workspace == "afile"
    [problem] = [p for p in problems if p.location == "workspace"]
    assert problem.is_error and problem.file == str(path)
    assert problem.line is not None and path.read_text().splitlines()[
        problem.line - 1].startswith("workspace: afile")
    assert problem.message == "'afile' is a file, not a folder"


def test_isolation_advice_and_attempts_read_the_workflows_workspace(tmp_path: Path) -> None:
    plain = tmp_path / "plain"  # a folder outside git: no worktree can be made in it
    plain.mkdir()
    path = tmp_path / "w.flow.yaml"
    text = EXAMPLE.read_text(encoding="utf-8").replace("mode:", f"workspace: {plain}\nmode:", 1)
    path.write_text(text.replace("    instructions:", "    isolation: worktree\n"
                                 "    instructions:", 1))
    _doc, problems = check_file(str(path))
    [advice] = [p for p in problems if p.location == "nodeConfigs.implementer.isolation"]
    assert advice.severity == "warning" and "not in a git repository" in advice.message
    path.write_text(text.replace("mode:", "isolation: shared\nmode:", 1).replace(
        "    instructions:", "    attempts: 2\n    instructions:", 1))
    _doc, problems = check_file(str(path))
    assert any(p.is_error and "attempts need worktrees" in p.message for p in problems)


@pytest.mark.parametrize("inside", ["bare.git", "bare.git/hooks", "repo/.git", "repo/.git/refs",
                                    "repo/.git/missing"])
def test_a_workspace_in_a_git_folder_is_an_error(tmp_path: Path, inside: str) -> None:
    """An agent there would write among git's own files: a bare repository's, or the
    .git of a checkout."""
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "bare.git")], check=True)
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    path = workflow_with(tmp_path, inside)
    _doc, problems = check_file(str(path))
    [problem] = [p for p in problems if p.location == "nodeConfigs.implementer.workspace"]
    folder = tmp_path / inside.split("/")[0]
    gitdir = folder if inside.startswith("bare") else folder / ".git"
    assert problem.is_error and f"inside the git folder {gitdir}" in problem.message
    if inside.startswith("bare"):
        assert f"git -C {gitdir} worktree add PATH" in problem.hint
    else:
        assert f"the repository's working tree, {folder}" in problem.hint
    _doc, fine = check_file(str(workflow_with(tmp_path, "repo")))
    assert [p for p in fine if p.location.endswith("workspace")] == []


def test_a_workspace_in_a_bare_repository_gets_no_advice_to_git_init_it(tmp_path: Path) -> None:
    """The error says what to do; advice on worktrees there (``git init`` a bare
    repository's folder) would contradict it."""
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "bare.git")], check=True)
    path = workflow_with(tmp_path, "bare.git")
    path.write_text(path.read_text().replace(
        "    instructions:", "    isolation: worktree\n    worktreeSetup: {run: make}\n"
        "    instructions:", 1))
    _doc, problems = check_file(str(path))
    assert [p.location for p in problems] == ["nodeConfigs.implementer.workspace"], \
        [str(p) for p in problems]
