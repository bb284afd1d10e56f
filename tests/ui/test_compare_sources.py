"""Compare mode opened from a workflow's git history (one commit against the open file, or
two commits against each other) and from an evaluation (baseline against new)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from shiboken6 import isValid

from desktop.graph.io import dumps_workflow, load_workflow, save_workflow
from desktop.graph.resources import examples_dir
from desktop.ui.compare_history import CommitPicker, compare_with_commit
from desktop.ui.run.evaluations import compare_evaluation
from desktop.ui.window import EditorWindow

USER = ("-c", "user.name=U", "-c", "user.email=u@example.com")
EXAMPLE = examples_dir() / "plan-implement-review.flow.yaml"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture
def versions(tmp_path: Path) -> Path:
    """review.flow.yaml committed three times: as the example, with a tester added, with
    the implementer's model changed; the open file has the reviewer removed on top."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    path = repo / "review.flow.yaml"
    doc = load_workflow(EXAMPLE)
    save_workflow(doc, path)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the example")
    doc.nodes.append(doc.nodes[0].model_copy(update={"id": "tester", "label": "Tester"}))
    save_workflow(doc, path)
    git(repo, "commit", "-q", "-am", "a tester")
    doc.node_configs["implementer"].model = "gpt-5"
    save_workflow(doc, path)
    git(repo, "commit", "-q", "-am", "another model")
    doc.nodes = [n for n in doc.nodes if n.id != "reviewer"]
    doc.edges = [e for e in doc.edges if "reviewer" not in (e.from_, e.to)]
    doc.node_configs.pop("reviewer")
    save_workflow(doc, path)
    return path


@pytest.fixture
def others(qtbot):
    """The windows a comparison opens beside the test's, closed after it."""
    before = set(QApplication.topLevelWidgets())
    yield lambda: [w for w in QApplication.topLevelWidgets()
                   if isinstance(w, EditorWindow) and w not in before and isValid(w)]
    for w in QApplication.topLevelWidgets():
        if isinstance(w, EditorWindow) and w not in before and isValid(w):
            w.file.close()
            w.close()
            w.deleteLater()


def pick(win, *subjects: str) -> None:
    win.ask.commits = lambda commits, name: [c for c in commits if c.subject in subjects]


def marks(win) -> dict[str, str | None]:
    return {k: v.diff_mark for k, v in win.scene.nodes.items() if v.diff_mark}


def test_one_commit_is_compared_with_the_open_workflow(editor_window, versions) -> None:
    win = editor_window
    assert win.files.open_path(versions)
    text = dumps_workflow(win.editor.model.doc)
    pick(win, "the example")
    assert compare_with_commit(win)
    assert marks(win) == {"tester": "added", "implementer": "changed"}
    ghosts = win.compare.overlay.ghosts
    assert list(ghosts) == ["reviewer"]  # removed since: drawn faint, where it was
    assert win.compare.overlay.other_name.startswith("review.flow.yaml at ")
    assert dumps_workflow(win.editor.model.doc) == text and not win.file.is_modified()


def test_two_commits_open_the_newer_with_the_older_drawn_over_it(editor_window, versions,
                                                                  others) -> None:
    win = editor_window
    assert win.files.open_path(versions)
    pick(win, "the example", "another model")
    assert compare_with_commit(win)
    [newer] = others()
    assert newer.file.path is None  # a past version: saving it asks where
    assert newer.editor.model.doc.node_configs["implementer"].model == "gpt-5"
    assert marks(newer) == {"tester": "added", "implementer": "changed"}
    assert not newer.compare.overlay.ghosts
    assert win.compare.overlay is None  # the open file's own canvas is left alone


def test_the_picker_takes_one_or_two_commits(qtbot, versions) -> None:
    from desktop.graph.history import flow_commits

    picker = CommitPicker(flow_commits(versions), "review.flow.yaml")
    qtbot.addWidget(picker)
    assert picker.compare.isEnabled() and [c.subject for c in picker.picked()] == [
        "another model"]
    for row in range(3):
        picker.list.topLevelItem(row).setSelected(True)
    assert not picker.compare.isEnabled()
    picker.list.topLevelItem(1).setSelected(False)
    assert picker.compare.isEnabled()
    assert [c.subject for c in picker.picked()] == ["another model", "the example"]


def test_an_unsaved_or_untracked_workflow_says_what_to_do(editor_window, tmp_path) -> None:
    win = editor_window
    assert not compare_with_commit(win)
    assert "not saved yet" in win.answers["errors"][-1]
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "w.flow.yaml").write_bytes(EXAMPLE.read_bytes())
    assert win.files.open_path(loose / "w.flow.yaml")
    assert not compare_with_commit(win)
    assert "must be inside a git repository" in win.answers["errors"][-1]
    git(loose, "init", "-q")
    assert not compare_with_commit(win)
    assert "has no commits yet" in win.answers["errors"][-1]


def test_an_evaluation_compares_its_new_workflow_with_its_baseline(editor_window, tmp_path,
                                                                   others) -> None:
    flows = tmp_path / "eval" / "workflows"
    flows.mkdir(parents=True)
    doc = load_workflow(EXAMPLE)
    save_workflow(doc, flows / "baseline.flow.yaml")
    doc.node_configs["reviewer"].model = "gpt-5"
    save_workflow(doc, flows / "new.flow.yaml")
    assert compare_evaluation(editor_window, "smoke", flows / "baseline.flow.yaml",
                              flows / "new.flow.yaml")
    assert others() == []  # the untitled window took it: no extra window beside it
    new = editor_window
    assert marks(new) == {"reviewer": "changed"}
    assert new.compare.overlay.other_name == "the baseline of smoke"
    (flows / "new.flow.yaml").write_text("nodes: [", encoding="utf-8")
    assert not compare_evaluation(editor_window, "smoke", flows / "baseline.flow.yaml",
                                  flows / "new.flow.yaml")
    assert "new.flow.yaml" in editor_window.answers["errors"][-1]
