"""Deleting runs from Run history, against a real service: the Delete key asks first, then
the run leaves the list with its folder, worktrees and canvas/RUN8/* branches, the tab
that showed it says it was deleted, and the user's repository (its own branch, a staged
change, an unstaged change, an untracked file) is untouched. A live run is never
deleted from the panel: it says to stop it first, and the service's refusal is shown in
the panel too."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
import yaml
from own_work import git, own_repo
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desktop.graph.io import document_data, loads_workflow
from desktop.ui.run.history import RunHistory
from desktop.ui.window import EditorWindow
from desktop.ui.window_questions import Questions


def _seen(repo: Path) -> dict[str, str]:
    """What of the user's repository must survive any deletion."""
    return {"status": git(repo, "status", "--porcelain"), "staged": git(repo, "diff", "--cached"),
            "unstaged": git(repo, "diff"), "head": git(repo, "rev-parse", "HEAD"),
            "branch": git(repo, "branch", "--show-current"),
            "notes": (repo / "NOTES.txt").read_text(),
            "branches": git(repo, "branch", "--list", "main", "feature",
                            "--format=%(refname:short) %(objectname)")}


def _two_nodes(repo: Path) -> dict:
    return {"version": 1, "name": "Two", "task": "t",
            "nodes": [{"id": "lead", "label": "Lead", "entry": True, "provider": "scripted"},
                      {"id": "helper", "label": "Helper", "provider": "scripted"}],
            "nodeConfigs": {
                "lead": {"workspace": str(repo), "script": [
                    {"edit": {"path": "new.txt", "content": "the agent's\n"}},
                    {"handoff": {"to": "helper", "message": "go"}}]},
                "helper": {"workspace": str(repo), "script": [{"say": "on it"}]}},
            "edges": [{"from": "lead", "to": "helper"}]}


def _gated(repo: Path) -> dict:
    return {"version": 1, "name": "Gated", "task": "t",
            "nodes": [{"id": "worker", "label": "Worker", "entry": True, "provider": "scripted",
                       "permissions": {"cliPermissionsMode": "gated"}}],
            "nodeConfigs": {"worker": {"workspace": str(repo), "script": [
                {"shell": "echo one"}, {"say": "done"}, {"done": True}]}}}


@pytest.fixture
def window(qloop, qtbot, own_service, monkeypatch, tmp_path):
    """An editor window whose Run history follows ``own_service``'s run list."""
    monkeypatch.setattr(Questions, "save_changes", lambda self: "discard")
    monkeypatch.setattr(Questions, "live_run", lambda self: "keep")
    editor = EditorWindow()
    qtbot.addWidget(editor)
    panels = editor.run_panels
    panels.data_dir = panels.history.data_dir = own_service.data_dir
    editor.resize(1280, 800)
    editor.show()
    qtbot.waitExposed(editor)
    panels.docks["history"].raise_()  # the history shows: its feed asks the service
    yield editor

    async def let_go() -> None:
        if panels.session is not None:
            await panels.session.close()
            panels.session = None
        for feed in (panels.feed, panels.runs_feed):
            if feed is not None:
                await feed.aclose()

    qloop.run_until_complete(let_go())


def _start(qloop, own_service, doc: dict, settled: str) -> str:
    """Start a run of ``doc`` in the service and wait until its status is ``settled``."""
    async def go() -> str:
        async with own_service.info.client() as client:
            flow = document_data(loads_workflow(yaml.safe_dump(doc)))
            run_id = (await client.create_run(workflow=flow))["id"]

            async def status() -> str:
                return (await client.get_run(run_id))["status"]

            for _ in range(1800):
                if (seen := await status()) == settled:
                    return run_id
                await asyncio.sleep(0.05)
            raise AssertionError(f"run {run_id} is {seen}, not {settled}")

    return qloop.run_until_complete(go())


def _select(history: RunHistory, run_id: str) -> None:
    [r] = [r for r, row in enumerate(history.rows) if row.run_id == run_id]
    history.table.setFocus()
    history.table.selectRow(r)


def _listed(history: RunHistory) -> set[str]:
    return {row.run_id for row in history.rows}


def test_a_finished_run_goes_with_its_worktrees_and_branches_and_the_user_s_work_stays(
        window, qloop, qtbot, until, own_service, tmp_path) -> None:
    repo = own_repo(tmp_path / "project")
    before = _seen(repo)
    doomed = _start(qloop, own_service, _two_nodes(repo), "completed")
    kept = _start(qloop, own_service, _two_nodes(repo), "completed")
    panels = window.run_panels
    history = panels.history
    qloop.run_until_complete(until(lambda: {doomed, kept} <= _listed(history), 30))
    assert git(repo, "branch", "--list", f"canvas/{doomed[:8]}/*")  # the run made some
    assert doomed in git(repo, "worktree", "list")
    folder = own_service.data_dir / "runs" / doomed
    panels.open_run(folder)  # the run is open in the window when it is deleted
    assert panels.session is not None and panels.session.run_id == doomed

    _select(history, doomed)
    assert history.delete_button.isEnabled()
    qtbot.keyClick(history.table, Qt.Key.Key_Delete)
    box = panels.deleting.box
    assert box is not None and box.isVisible()
    said = box.text() + box.informativeText()
    assert f"run {doomed[:8]}" in said and f"canvas/{doomed[:8]}/*" in said
    assert "uncommitted work" in said
    [delete] = [b for b in box.buttons()
                if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole]
    assert box.defaultButton() is not delete  # Enter keeps the runs
    delete.click()

    qloop.run_until_complete(until(lambda: doomed not in _listed(history), 30))
    qloop.run_until_complete(until(lambda: panels.deleting.task.done(), 30))
    assert not folder.exists()
    assert doomed not in git(repo, "worktree", "list")
    assert git(repo, "branch", "--list", f"canvas/{doomed[:8]}/*") == ""
    assert git(repo, "for-each-ref", f"refs/canvas/{doomed[:8]}/") == ""
    assert kept in _listed(history)  # only the selected run went
    assert git(repo, "branch", "--list", f"canvas/{kept[:8]}/*")
    assert _seen(repo) == before
    assert history.note.isVisible()
    assert history.note.text().startswith("Deleted 1 run: 2 worktrees")
    assert "2 branches removed" in history.note.text()
    assert panels.session is None  # the window no longer shows the deleted run, and says so
    assert panels.service.isVisible() and "was deleted" in panels.service.title.text()
    assert not panels.service.restart.isVisible()


def test_a_live_run_is_not_deleted_from_the_panel(window, qloop, qtbot, until,
                                                  own_service, tmp_path) -> None:
    repo = own_repo(tmp_path / "project")
    live = _start(qloop, own_service, _gated(repo), "running")
    history = window.run_panels.history
    qloop.run_until_complete(until(lambda: any(
        r.run_id == live and r.live for r in history.rows), 30))
    _select(history, live)
    assert not history.delete_button.isEnabled()
    assert "stop it first" in history.delete_button.toolTip()
    qtbot.keyClick(history.table, Qt.Key.Key_Delete)
    assert window.run_panels.deleting.box is None  # not even asked
    assert history.note.isVisible() and "is live: stop it first" in history.note.text()
    history.table.clearSelection()  # the refusal was about that selection: it goes with it
    assert not history.note.isVisible()

    # were it asked anyway (it went live since the list was read), the service's refusal
    # is said in the panel, and nothing of the run goes
    [row] = [r for r in history.rows if r.run_id == live]
    task = window.run_panels.deleting.delete([row])
    qloop.run_until_complete(until(task.done, 30))
    assert "was not deleted: it is live. Stop it first" in history.note.text()
    assert history.note.property("role") == "error"
    assert (own_service.data_dir / "runs" / live).is_dir()
    assert live in _listed(history)


def test_a_run_deleted_elsewhere_while_the_window_follows_it_is_shown_as_deleted(
        window, qloop, until, own_service, tmp_path) -> None:
    repo = own_repo(tmp_path / "project")
    live = _start(qloop, own_service, _gated(repo), "running")
    panels = window.run_panels
    session = panels.open_run(own_service.data_dir / "runs" / live)
    assert session.live  # it follows the service's stream of the run

    async def go() -> None:
        await session.loaded()
        async with own_service.info.client() as client:  # as `runs delete --force` does
            await client.delete_run(live, force=True)
        await until(lambda: panels.session is None, 30)

    qloop.run_until_complete(go())
    assert panels.service.isVisible() and f"Run {live[:8]} was deleted" in \
        panels.service.title.text()


def test_a_run_whose_worktree_holds_the_user_s_later_edit_stays_and_the_panel_says_why(
        window, qloop, until, own_service, tmp_path) -> None:
    repo = own_repo(tmp_path / "project")
    run_id = _start(qloop, own_service, _two_nodes(repo), "completed")
    history = window.run_panels.history
    qloop.run_until_complete(until(lambda: any(
        r.run_id == run_id and not r.live for r in history.rows), 30))
    folder = own_service.data_dir / "runs" / run_id
    edited = folder / "worktrees" / "lead" / "new.txt"
    edited.write_text("the agent's, fixed by the user\n")
    later = (folder / "events.jsonl").stat().st_mtime + 5  # after the run's last event
    os.utime(edited, (later, later))

    [row] = [r for r in history.rows if r.run_id == run_id]
    task = window.run_panels.deleting.delete([row])
    qloop.run_until_complete(until(task.done, 30))
    said = history.note.text()
    assert history.note.property("role") == "error"
    # the run named once, by the panel
    assert said.startswith(f"“Two” (run {run_id[:8]}) was not deleted, nothing was changed: "
                           "its worktrees hold work made after it ended")
    assert said.count("not deleted") == 1
    assert f"{edited.parent}: 1 uncommitted change (new.txt)" in said
    assert f"git -C {edited.parent} stash push --include-untracked" in said
    assert folder.is_dir() and edited.read_text() == "the agent's, fixed by the user\n"
    assert run_id in _listed(history)
