"""The Result view over a real run in a git repository with uncommitted work: the files
and a diff, a partial selection applied to the working tree (the user's changes
survive), a branch created, a collision named with nothing changed, a run without a
result said with why, and a pull request through a stand-in ``gh``."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from lockkit import applying_elsewhere
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from service_process import ServeProcess

from desktop.graph.io import loads_workflow
from desktop.ui.run.result_text import applied_line, default_branch

USER = ("-c", "user.name=The User", "-c", "user.email=user@example.com")
URL = "https://github.com/u/p/pull/7"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


def project(tmp_path: Path) -> Path:
    """A repository with a commit, a change to it not committed, and an untracked file."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "lib.txt").write_text("committed\n")
    git(repo, "add", "lib.txt")
    git(repo, "commit", "-q", "-m", "init")
    (repo / "lib.txt").write_text("committed\nwork in progress\n")
    (repo / "notes.txt").write_text("untracked\n")
    return repo


def two_implementers(repo: Path | None) -> str:
    ws = f'workspace: "{repo}", ' if repo else ""
    return f"""
version: 1
name: Two implementers
task: write both halves
nodes:
  - {{id: lead, label: Lead, provider: scripted, entry: true}}
  - {{id: left, label: Left, provider: scripted}}
  - {{id: right, label: Right, provider: scripted}}
nodeConfigs:
  lead: {{{ws}stallThreshold: 10, script: [{{say: lead}}]}}
  left: {{{ws}script: [{{edit: {{path: left.txt, content: "left\\n"}}}}]}}
  right: {{{ws}script: [{{edit: {{path: right.txt, content: "right\\nsecond\\n"}}}}]}}
edges:
  - {{from: lead, to: left}}
  - {{from: lead, to: right}}
  - {{from: left, to: lead, type: report}}
  - {{from: right, to: lead, type: report}}
"""


def status(panels) -> str:
    return ((panels.session.state if panels.session else None) or {}).get("status", "")


def show_result_tab(window, panels) -> None:
    """The user opens the Result tab (its dock becomes visible: the result loads)."""
    window.show()
    panels.docks["result"].raise_()


async def run_to_the_end(panels, until) -> None:
    await panels.run()
    await until(lambda: status(panels) in ("completed", "failed", "stopped"))
    assert status(panels) == "completed"


async def settled(panels, until) -> None:
    """Every request of the Result view has its answer."""
    await until(lambda: not panels.results.tasks)


def rows(view) -> list[tuple[str, str, bool]]:
    out = []
    for i in range(view.files.topLevelItemCount()):
        item = view.files.topLevelItem(i)
        out.append((item.text(0), item.text(1), item.checkState(0) == Qt.CheckState.Checked))
    return out


def test_a_finished_runs_result_is_listed_diffed_applied_in_part_branched_and_collides(
        qloop, window_for, until, tmp_path):
    repo = project(tmp_path)
    window, panels = window_for(loads_workflow(two_implementers(repo)))
    view = panels.result

    async def go():
        await panels.run()
        show_result_tab(window, panels)  # looked at while the run works: loaded as it ends
        if status(panels) in ("queued", "running"):
            assert view.title.text().startswith("The run is still working")
        await until(lambda: status(panels) in ("completed", "failed", "stopped"))
        assert status(panels) == "completed"
        await until(lambda: view.result is not None and "left.txt" in view.patches)
        await settled(panels, until)

    qloop.run_until_complete(go())
    run8 = panels.session.run_id[:8]
    assert view.title.text() == f"Result: branch canvas/{run8}/lead, from node Lead"
    assert str(repo) in view.detail.text()
    assert rows(view) == [("left.txt", "added", True), ("right.txt", "added", True)]
    assert view.current_path() == "left.txt"
    assert "+left" in view.patch.unified.toPlainText()
    assert view.count.text() == "2 of 2 files accepted"
    assert view.applied.isHidden() and view.note.isHidden()
    assert not view.pr_button.isVisibleTo(view)  # no remote: no pull request offered

    view.select("right.txt")  # another file: its diff is fetched
    qloop.run_until_complete(until(lambda: "+second" in view.patch.unified.toPlainText()))
    assert "second" in view.patch.right.toPlainText()

    # reject left.txt, apply the rest onto the working tree
    view.set_accepted("left.txt", False)
    assert view.count.text() == "1 of 2 files accepted"
    assert view.accepted() == ["right.txt"]
    view.apply_button.click()
    qloop.run_until_complete(settled(panels, until))
    assert (repo / "right.txt").read_text() == "right\nsecond\n"
    assert not (repo / "left.txt").exists()
    assert (repo / "lib.txt").read_text() == "committed\nwork in progress\n"  # theirs, kept
    assert (repo / "notes.txt").read_text() == "untracked\n"
    assert git(repo, "log", "--format=%s") == "init"  # nothing committed
    assert "Applied 1 file to your working tree" in view.note.text()
    assert "right.txt" in view.note.text()
    assert rows(view)[0] == ("left.txt", "added, rejected", False)  # the choice outlives the reload
    assert not view.applied.isHidden() and "the working tree: 1 file:" in view.applied.text()
    # the application just made is listed: it is not "before" the note that announces it
    assert view.applied.text().startswith("Applied so far:\n")

    # the user writes their own left.txt: taking the result's left.txt collides
    (repo / "left.txt").write_text("the user's own left\n")
    view.set_accepted("left.txt", True)
    view.apply_button.click()
    qloop.run_until_complete(settled(panels, until))
    note = view.note.text()
    assert "Nothing was changed" in note and "left.txt" in note and "1 file " in note
    assert rows(view)[0] == ("left.txt", "added, collides", True)
    # in the theme's error colour
    assert view.files.topLevelItem(0).foreground(0).color().name() == view.theme.error
    assert view.files.topLevelItem(1).foreground(0).style() == Qt.BrushStyle.NoBrush
    assert (repo / "left.txt").read_text() == "the user's own left\n"
    assert (repo / "right.txt").read_text() == "right\nsecond\n"

    # the whole result as a branch, named in the dialog
    view.branch_button.click()
    dialog = view.dialog
    assert dialog.textValue() == f"agent-canvas/{run8}"
    dialog.accept()
    qloop.run_until_complete(settled(panels, until))
    assert git(repo, "show", f"agent-canvas/{run8}:left.txt") == "left"
    assert git(repo, "show", f"agent-canvas/{run8}:lib.txt") == "committed"
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD") == "main"  # checkout untouched
    assert f"Created branch agent-canvas/{run8}" in view.note.text()
    assert f"branch agent-canvas/{run8}: 2 files" in view.applied.text()
    view.branch_button.click()
    assert view.dialog.textValue() == f"agent-canvas/{run8}-2"  # the name is taken
    view.dialog.reject()


async def result_on_show(window, panels, until) -> None:
    """The run ran to its end and the user looks at its Result tab, loaded."""
    await run_to_the_end(panels, until)
    show_result_tab(window, panels)
    await until(lambda: panels.result.result is not None)
    await settled(panels, until)


def test_apply_while_a_terminal_applies_the_run_says_so_and_changes_nothing(
        qloop, window_for, until, tmp_path):
    repo = project(tmp_path)
    window, panels = window_for(loads_workflow(two_implementers(repo)))
    view = panels.result
    qloop.run_until_complete(result_on_show(window, panels, until))
    run_id = panels.session.run_id
    with applying_elsewhere(panels.session.run_dir):  # `agent-canvas runs apply` meanwhile
        view.apply_button.click()
        qloop.run_until_complete(settled(panels, until))
    assert view.note.text() == (
        f"Nothing was changed: another apply of run {run_id[:8]} is under way (in the app, "
        "a service or a terminal): let that one finish, then apply again")
    assert not (repo / "left.txt").exists() and view.apply_button.isEnabled()
    view.apply_button.click()  # that one done: this one goes
    qloop.run_until_complete(settled(panels, until))
    assert (repo / "left.txt").read_text() == "left\n"


def test_undo_apply_puts_the_files_back_keeps_later_edits_and_names_a_collision(
        qloop, window_for, until, tmp_path):
    repo = project(tmp_path)
    window, panels = window_for(loads_workflow(two_implementers(repo)))
    view = panels.result
    qloop.run_until_complete(result_on_show(window, panels, until))
    assert not view.undo_button.isVisibleTo(view)  # nothing applied: nothing to undo
    view.apply_button.click()
    qloop.run_until_complete(settled(panels, until))
    assert (repo / "left.txt").exists() and view.undo_button.isVisibleTo(view)
    assert "2 files the apply of" in view.undo_button.toolTip()

    (repo / "right.txt").write_text("right\nmine instead\n")  # edited where undo writes
    (repo / "later.txt").write_text("mine\n")  # and a file of the user's own since
    view.undo_button.click()
    qloop.run_until_complete(settled(panels, until))
    note = view.note.text()
    assert "Nothing was changed" in note and "right.txt" in note
    assert ("right.txt", "added, collides", True) in rows(view)
    assert (repo / "left.txt").read_text() == "left\n"

    (repo / "right.txt").write_text("right\nsecond\n")
    view.undo_button.click()
    qloop.run_until_complete(settled(panels, until))
    assert "Undone" in view.note.text() and "left.txt, right.txt" in view.note.text()
    assert not (repo / "left.txt").exists() and not (repo / "right.txt").exists()
    assert (repo / "later.txt").read_text() == "mine\n"
    assert (repo / "lib.txt").read_text() == "committed\nwork in progress\n"
    assert (repo / "notes.txt").read_text() == "untracked\n"
    assert "(undone " in view.applied.text()
    assert not view.undo_button.isVisibleTo(view)  # that was the only one


def test_a_run_without_worktrees_says_so_and_why(qloop, window_for, until):
    window, panels = window_for(loads_workflow(two_implementers(None)))
    view = panels.result
    assert view.title.text() == "Open a run to see its result."

    async def go():
        await run_to_the_end(panels, until)
        show_result_tab(window, panels)  # shown after the run: it loads now
        await until(lambda: view.title.text().startswith("No result"))
        await settled(panels, until)

    qloop.run_until_complete(go())
    assert view.title.text() == "No result"
    assert "none of its nodes worked in a git worktree" in view.detail.text()
    assert not view.detail.isHidden()
    assert view.split.isHidden() and view.apply_button.isHidden()
    assert view.note.isHidden()
    assert not [w for w in QApplication.topLevelWidgets()
                if isinstance(w, QMessageBox) and w.isVisible()]  # no error dialog


def test_a_result_in_the_runs_own_scratch_repository_says_where_it_applies(
        qloop, window_for, until):
    flow = two_implementers(None).replace("task: write both halves\n",
                                          "task: write both halves\nisolation: worktree\n")
    window, panels = window_for(loads_workflow(flow))
    view = panels.result

    async def go():
        await run_to_the_end(panels, until)
        show_result_tab(window, panels)
        await until(lambda: view.title.text().startswith("Result: branch"))
        await settled(panels, until)

    qloop.run_until_complete(go())
    assert view.detail.text().startswith("in the run's own scratch repository")
    assert view.apply_button.text() == "Apply to the run's workspace"
    assert sorted(view._paths()) == ["left.txt", "right.txt"]


@pytest.fixture
def gh_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServeProcess]:
    """A service whose PATH has a stand-in ``gh`` that records its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {tmp_path / 'gh.args'}\n"
                  f"echo 'Creating pull request'\necho {URL}\n")
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    svc = ServeProcess(tmp_path / "gh-service")
    yield svc
    svc.stop()


def test_open_pull_request_after_a_branch_pushes_it_and_links_the_pull_request(
        qloop, window_for, until, tmp_path, gh_service):
    repo = project(tmp_path)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    window, panels = window_for(loads_workflow(two_implementers(repo)), gh_service.data_dir)
    view = panels.result

    async def go():
        await run_to_the_end(panels, until)
        show_result_tab(window, panels)
        await until(lambda: view.result is not None)
        await settled(panels, until)

    qloop.run_until_complete(go())
    assert view.pr_button.isVisibleTo(view) and not view.pr_button.isEnabled()
    view.branch_button.click()
    view.dialog.setTextValue("agent/result")
    view.dialog.accept()
    qloop.run_until_complete(settled(panels, until))
    assert view.pr_button.isEnabled()
    view.pr_button.click()
    qloop.run_until_complete(settled(panels, until))
    assert URL in view.note.text() and "pushed to origin" in view.note.text()
    assert git(remote, "rev-parse", "agent/result") == git(repo, "rev-parse", "agent/result")
    args = (tmp_path / "gh.args").read_text().splitlines()
    assert args[:4] == ["pr", "create", "--head", "agent/result"]


def test_the_default_branch_name_and_an_application_line():
    assert default_branch("1a2b3c4d-0000", []) == "agent-canvas/1a2b3c4d"
    assert default_branch("1a2b3c4d-0000", ["agent-canvas/1a2b3c4d",
                                            "agent-canvas/1a2b3c4d-2"]) == \
        "agent-canvas/1a2b3c4d-3"
    line = applied_line({"at": "2025-01-02T03:04:05Z", "target": "branch", "branch": "b",
                         "files": ["a", "b", "c", "d", "e", "f", "g"]})
    assert line == "• 2025-01-02 03:04:05 to branch b: 7 files: a, b, c, d, e, f and 1 more"


def test_why_there_is_no_result_wraps_under_a_short_heading_at_the_top(qtbot):
    from desktop.ui.run.result_view import ResultView

    view = ResultView()
    qtbot.addWidget(view)
    view.resize(1400, 400)  # a result dock across a wide window
    view.show()
    why = ("Run 9a356dae has no result branch: none of its nodes worked in a git worktree "
           "(isolation: worktree, with a workspace in a git repository).")
    view.show_message("No result", why)
    view.layout().activate()
    assert view.title.text() == "No result" and view.title.font().bold()
    assert view.detail.text() == why and not view.detail.font().bold()
    line = view.detail.fontMetrics().lineSpacing()
    assert view.detail.isVisible() and view.detail.height() >= 2 * line  # wrapped
    assert view.detail.width() < view.width() // 2  # at a width one can read
    assert view.title.geometry().top() < 3 * line  # at the top, not in the middle
    view.show_message("Open a run to see its result.")
    assert view.detail.isHidden()  # no explanation: none shown


def test_many_applications_leave_the_diff_its_tabs(qtbot):
    """Each earlier application was one more line under the files, without end, and the
    diff shrank until its Side by side tab was cut: the latest few are listed (all in
    the tooltip), and the diff keeps the height of its tabs."""
    from desktop.ui.run.result_view import APPLIED_SHOWN, ResultView

    view = ResultView()
    qtbot.addWidget(view)
    view.resize(1300, 330)  # the Result dock of a 1000 px high window
    view.show()
    view.show_result({"branch": "canvas/1a2b3c4d/lead", "node": "lead", "repo": "/r",
                      "base": "ab" * 20, "commit": "cd" * 20,
                      "files": [{"path": "app.py", "status": "modified"}]})
    records = [{"at": f"2026-11-28T03:{m:02d}:00Z", "target": "workingTree",
                "files": ["app.py"]} for m in range(9)]
    view.show_applied(records)
    view.show_note("ok", "Applied 1 file to your working tree")
    view.layout().activate()
    text = view.applied.text().splitlines()
    assert text[0] == f"Applied so far (the latest {APPLIED_SHOWN} of 9):"
    assert len(text) == APPLIED_SHOWN + 1 and text[-1].startswith("• 2026-11-28 03:08:00")
    assert view.applied.toolTip().count("\n") == 8
    tabs = view.patch.tabBar()
    assert view.patch.height() >= tabs.sizeHint().height()
    assert tabs.tabRect(1).bottom() <= tabs.height()  # Side by side shown whole


def test_a_collision_note_agrees_with_its_count(qtbot):
    """"1 file collide with your uncommitted changes" read wrong."""
    from desktop.ui.run.result_view import ResultView

    view = ResultView()
    qtbot.addWidget(view)
    view.show_collision(["app.py"])
    assert "1 file collides with your uncommitted changes" in view.note.text()
    view.show_collision(["app.py", "README.md"])
    assert "2 files collide with your uncommitted changes" in view.note.text()


@pytest.mark.parametrize("dark", [False, True])
def test_a_rejected_file_reads_as_rejected_in_either_theme(qtbot, dark):
    """A rejected file differed from an accepted one only by its checkbox: it now says
    "rejected", is struck through and dimmed (the theme's muted colour), and reads as
    before once accepted again."""
    from desktop.ui.run.result_view import ResultView
    from desktop.ui.theme import DARK, LIGHT

    look = DARK if dark else LIGHT
    view = ResultView(theme=look)
    qtbot.addWidget(view)
    view.show_result({"branch": "canvas/1a2b3c4d/lead", "node": "lead", "repo": "/r",
                      "base": "ab" * 20, "commit": "cd" * 20,
                      "files": [{"path": "app.py", "status": "modified"},
                                {"path": "notes.md", "status": "added"}]})
    kept, dropped = (view.files.topLevelItem(i) for i in range(2))
    dropped.setCheckState(0, Qt.CheckState.Unchecked)  # as a click on its box does
    assert dropped.text(1) == "added, rejected" and dropped.font(0).strikeOut()
    muted = look.color("muted")
    assert dropped.foreground(0).color() == muted == dropped.foreground(1).color()
    assert kept.text(1) == "modified" and not kept.font(0).strikeOut()
    assert kept.foreground(0).color() != muted
    view.show_collision(["notes.md"])  # a rejected file that collides says both
    assert dropped.text(1) == "added, collides, rejected"
    dropped.setCheckState(0, Qt.CheckState.Checked)
    assert dropped.text(1) == "added, collides" and not dropped.font(0).strikeOut()
    assert view.accepted() is None


def test_undo_apply_is_offered_after_the_result_branch_was_removed_by_hand(
        qloop, window_for, until, tmp_path):
    """With its branch gone the run has no result to show, but the apply it made is
    still kept: the view says why, and Undo apply puts the files back."""
    repo = project(tmp_path)
    window, panels = window_for(loads_workflow(two_implementers(repo)))
    view = panels.result
    qloop.run_until_complete(result_on_show(window, panels, until))
    branch = view.result["branch"]
    view.apply_button.click()
    qloop.run_until_complete(settled(panels, until))
    assert (repo / "left.txt").exists()
    git(repo, "update-ref", "-d", f"refs/heads/{branch}")

    view.refresh_button.click()
    # one wait for both: the refresh goes on to ask the service about undo, and a loop
    # stopped between two waits would leave that request half way
    qloop.run_until_complete(until(lambda: view.title.text() == "No result"
                                   and not panels.results.tasks))
    assert f"Branch {branch} is gone" in view.detail.text()
    assert view.undo_button.isVisibleTo(view) and view.undo_button.isEnabled()
    assert view.undo_button.toolTip().startswith("Would put back 2 files")
    view.undo_button.click()
    qloop.run_until_complete(settled(panels, until))
    assert "Undone" in view.note.text()
    assert not (repo / "left.txt").exists() and not (repo / "right.txt").exists()
    assert (repo / "lib.txt").read_text() == "committed\nwork in progress\n"
    assert not view.undo_button.isVisibleTo(view)
    assert "is gone" in view.detail.text() and "--undo" not in view.detail.text()
