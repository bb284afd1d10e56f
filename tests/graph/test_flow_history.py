"""A workflow's past versions read from git, renames followed, the repository untouched;
`agent-canvas diff REV:PATH FILE` compares against them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli import main
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.history import HistoryError, flow_at, flow_commits
from desktop.graph.io import dumps_workflow, load_workflow, save_workflow
from desktop.graph.resources import examples_dir

USER = ("-c", "user.name=U", "-c", "user.email=u@example.com")
EXAMPLE = examples_dir() / "plan-implement-review.flow.yaml"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


def state(repo: Path) -> tuple[str, bytes, str]:
    """What the user would see: status, the index's bytes, the branch and HEAD."""
    return (git(repo, "status", "--porcelain=v2", "--branch", "--untracked-files=all"),
            (repo / ".git" / "index").read_bytes(), git(repo, "rev-parse", "HEAD"))


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    """A repository whose workflow had three labels for the implementer, was moved into
    flows/ between the second and third, and has an uncommitted fourth."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    doc = load_workflow(EXAMPLE)
    labels = ["Implementer", "Builder", "Coder", "Uncommitted"]
    for index, label in enumerate(labels):
        doc.node("implementer").label = label
        path = repo / ("flows/review.flow.yaml" if index >= 2 else "review.flow.yaml")
        if index == 2:
            (repo / "flows").mkdir()
            git(repo, "mv", "review.flow.yaml", "flows/review.flow.yaml")
        save_workflow(doc, path)
        if index < 3:
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", f"implementer is {label}")
    return repo / "flows" / "review.flow.yaml", labels


def test_commits_are_listed_newest_first_under_the_name_they_had(history) -> None:
    path, labels = history
    repo = path.parents[1]
    before = state(repo)
    commits = flow_commits(path)
    assert [c.subject for c in commits] == [f"implementer is {x}" for x in reversed(labels[:3])]
    assert [c.path for c in commits] == ["flows/review.flow.yaml", "review.flow.yaml",
                                        "review.flow.yaml"]
    found = [flow_at(path, c).node("implementer").label for c in commits]
    assert found == ["Coder", "Builder", "Implementer"]
    assert flow_at(path, "HEAD~0").node("implementer").label == "Coder"
    assert load_workflow(path).node("implementer").label == "Uncommitted"
    assert state(repo) == before  # nothing read from history touched their checkout


def test_outside_git_or_at_a_commit_without_the_file_says_so(history, tmp_path) -> None:
    path, _ = history
    loose = tmp_path / "loose.flow.yaml"
    loose.write_bytes(EXAMPLE.read_bytes())
    with pytest.raises(HistoryError, match="inside a git repository"):
        flow_commits(loose)
    with pytest.raises(WorkflowLoadError) as caught:
        flow_at(path, "HEAD~2")  # it was review.flow.yaml at the top then
    assert "review.flow.yaml@HEAD~2: not in git at HEAD~2" in str(caught.value)
    with pytest.raises(HistoryError, match="no such folder"):
        flow_at(tmp_path / "gone" / "x.flow.yaml", "HEAD")


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=40))
def test_a_committed_version_reads_back_exactly(tmp_path: Path, description: str) -> None:
    repo = tmp_path / "any"
    repo.mkdir(exist_ok=True)
    if not (repo / ".git").exists():
        git(repo, "init", "-q", "-b", "main")
    doc = load_workflow(EXAMPLE)
    doc.description = description
    save_workflow(doc, repo / "w.flow.yaml")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "v")
    assert dumps_workflow(flow_at(repo / "w.flow.yaml", "HEAD")) == dumps_workflow(doc)


def test_the_cli_compares_with_a_commit(history, capsys, monkeypatch) -> None:
    path, _ = history
    monkeypatch.chdir(path.parent)
    assert main(["diff", "HEAD:review.flow.yaml", "review.flow.yaml"]) == 1
    out = capsys.readouterr().out
    assert '~ node implementer: label: "Coder" → "Uncommitted"' in out
    assert main(["diff", "HEAD:review.flow.yaml", "HEAD:review.flow.yaml"]) == 0
    capsys.readouterr()
    assert main(["diff", "nope:review.flow.yaml", "review.flow.yaml"]) == 2
    assert "review.flow.yaml@nope: not in git at nope" in capsys.readouterr().err
