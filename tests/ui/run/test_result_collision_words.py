"""A collision of a run's result is said in the words of where it was to land: onto the
working tree it is the user's uncommitted changes (commit or stash them); as a new branch
it is their last commit, which lacks what was uncommitted when the run began (stashing
changes nothing there). The banner and the row say it as the runtime does."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from test_result_view import git, project, result_on_show, rows

from desktop.graph.io import loads_workflow
from desktop.views.result_words import BRANCH_WHY, collides


def edits_the_users_line(repo) -> str:
    """A run whose one node changes the line of lib.txt the user has not committed."""
    return f"""
version: 1
name: Edit the line in progress
task: change lib.txt
nodes:
  - {{id: impl, label: Impl, provider: scripted, entry: true}}
nodeConfigs:
  impl: {{workspace: "{repo}", script: [{{edit: {{path: lib.txt,
    content: "committed\\nagent edit\\n"}}}}]}}
"""


def test_a_branch_that_lacks_the_users_uncommitted_start_says_so_not_stash(
        qloop, window_for, until, tmp_path):
    """The run's base held the user's uncommitted "work in progress" line of lib.txt and
    the agent changed that line: the branch (on HEAD) collides, the working tree does not."""
    repo = project(tmp_path)
    window, panels = window_for(loads_workflow(edits_the_users_line(repo)))
    view = panels.result
    qloop.run_until_complete(result_on_show(window, panels, until))
    view.branch_button.click()
    view.dialog.setTextValue("feat/result")
    view.dialog.accept()
    qloop.run_until_complete(until(lambda: not panels.results.tasks))
    note = view.note.text()
    assert collides(1, "feat/result") in note  # "…with your last commit, where branch…"
    assert BRANCH_WHY[1:] in note and "commit those edits first, or apply to your " \
        "working tree" in note
    assert "stash" not in note and "uncommitted changes:" not in note
    assert rows(view) == [("lib.txt", "modified, collides", True)]
    tip = view.files.topLevelItem(0).toolTip(0)
    assert tip == "collides with your last commit, where branch feat/result would start"
    assert git(repo, "branch", "--list", "feat/result") == ""

    # onto the working tree it applies; then, with a change of the user's own there, the
    # same file collides with their uncommitted changes
    (repo / "lib.txt").write_text("committed\nthe user's other edit\n")
    view.apply_button.click()
    qloop.run_until_complete(until(lambda: not panels.results.tasks))
    note = view.note.text()
    assert collides(1, None) in note and "commit or stash your own change" in note
    assert "last commit" not in note
    assert view.files.topLevelItem(0).toolTip(0) == "collides with your uncommitted changes"
    (repo / "lib.txt").write_text("committed\nwork in progress\n")
    view.apply_button.click()
    qloop.run_until_complete(until(lambda: not panels.results.tasks))
    assert (repo / "lib.txt").read_text() == "committed\nagent edit\n"
    assert view.files.topLevelItem(0).toolTip(0) == ""


@pytest.mark.parametrize("count", [1, 3])
def test_the_banner_names_what_each_target_collides_with(qtbot, count):
    from desktop.ui.run.result_view import ResultView

    view = ResultView()
    qtbot.addWidget(view)
    view.show_result({"branch": "canvas/1a2b3c4d/lead", "node": "lead", "repo": "/r",
                      "base": "ab" * 20, "commit": "cd" * 20,
                      "files": [{"path": f"f{i}.py", "status": "modified"}
                                for i in range(count)]})
    files = [f"f{i}.py" for i in range(count)]
    view.show_collision(files, "agent/x")
    assert collides(count, "agent/x") in view.note.text()
    assert view.files.topLevelItem(0).toolTip(0).endswith("where branch agent/x would start")
    view.show_collision(files)
    assert collides(count, None) in view.note.text()
    assert view.files.topLevelItem(0).toolTip(0) == "collides with your uncommitted changes"
    assert view.files.topLevelItem(0).checkState(0) == Qt.CheckState.Checked
