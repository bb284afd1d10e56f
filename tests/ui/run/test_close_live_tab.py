"""Closing the tab of a live INTERACTIVE run that waits for Step: the question says it
waits for Step and that the inbox lists it, and kept running, the run goes on in the
service while the app stays open, even when that tab was the last one."""

from __future__ import annotations

import pytest
from shiboken6 import isValid

from desktop.graph.resources import examples_dir
from desktop.ui import close_dialog
from desktop.ui.close_dialog import LiveRun
from desktop.ui.tabs import TabbedWindow
from desktop.ui.window import EditorWindow
from desktop.ui.window_questions import Questions

SINGLE = examples_dir() / "single-agent.flow.yaml"


@pytest.fixture
def one_tab(qloop, qtbot, tmp_path, own_service, monkeypatch):
    """A tabbed window whose only tab is the single-agent workflow."""
    monkeypatch.setattr(Questions, "save_changes", lambda self: "discard")
    path = tmp_path / SINGLE.name
    path.write_bytes(SINGLE.read_bytes())
    shell = TabbedWindow()  # closed below, unless a test closed it (and it was deleted)
    editor = EditorWindow(str(path))
    editor.run_panels.data_dir = own_service.data_dir
    shell.add(editor)
    shell.resize(1280, 800)
    shell.show()
    qtbot.waitExposed(shell)
    yield shell, editor

    async def let_go() -> None:
        for tab in shell.editors() if isValid(shell) else []:
            panels = tab.run_panels
            if panels.session is not None:
                await panels.session.close()
                panels.session = None
            for feed in (panels.feed, panels.runs_feed):
                if feed is not None:
                    await feed.aclose()

    qloop.run_until_complete(let_go())
    if isValid(shell):
        shell.close()


def test_closing_the_last_tab_over_a_run_waiting_for_step_keeps_the_app_open(
        one_tab, qloop, until, own_service, monkeypatch) -> None:
    shell, tab = one_tab
    asked: list[tuple[LiveRun, str, str]] = []

    def keep(_parent, run: LiveRun) -> str:
        asked.append((run, close_dialog.live_question(run), close_dialog.keep_note([run])))
        return "keep"

    monkeypatch.setattr(close_dialog, "ask_live_run", keep)

    async def start() -> str:
        await tab.run_panels.run(interactive=True)
        session = tab.run_panels.session
        await until(lambda: bool((session.state or {}).get("inboxes")), 60)
        return session.run_id

    run_id = qloop.run_until_complete(start())

    async def close_the_tab() -> None:
        assert shell.close_tab(tab) is False  # it lets go of the run first
        await until(lambda: not isValid(tab) or tab not in shell.editors(), 30)

    qloop.run_until_complete(close_the_tab())
    [(run, question, note)] = asked  # closing asked what to do with the run
    # it says the run waits for Step, for whose turn, and that the inbox lists it
    assert run.step == "Implementer"
    assert "still running and waits for Step (Implementer's turn is next)" in question
    assert "the Approvals inbox of every window lists it as waiting for Step" in note
    # the app stays open, on a new untitled workflow, as it starts with no file
    assert isValid(shell) and shell.isVisible() and shell.tabs.count() == 1
    fresh = shell.current()
    assert fresh is not tab and fresh.file.path is None and not fresh.editor.model.doc.nodes

    async def status() -> str:
        async with own_service.info.client() as client:
            return str((await client.get_run(run_id)).get("status"))

    assert qloop.run_until_complete(status()) == "running"  # kept running in the service


def test_closing_the_window_over_a_live_run_still_closes_it_once_the_run_is_let_go(
        one_tab, qloop, until, monkeypatch) -> None:
    shell, tab = one_tab
    monkeypatch.setattr(Questions, "live_run", lambda self: "keep")

    async def start_then_close() -> None:
        await tab.run_panels.run(interactive=True)
        session = tab.run_panels.session
        await until(lambda: bool((session.state or {}).get("inboxes")), 60)
        shell.close()
        await until(lambda: not isValid(shell) or not shell.isVisible(), 30)

    qloop.run_until_complete(start_then_close())
    assert not isValid(shell) or shell.tabs.count() == 0  # no untitled tab in its place
