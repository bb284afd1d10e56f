"""Never lose sight of a run (issue 28): a run whose tab was closed, kept running, is still
in the inbox and the badge of the tab in front; deciding it there unblocks it and brings
the run up again in a tab of its own."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from run_flows import gated
from shiboken6 import isValid

from desktop.graph.resources import examples_dir
from desktop.ui.tabs import TabbedWindow
from desktop.ui.window import EditorWindow
from desktop.ui.window_questions import Questions

SINGLE = examples_dir() / "single-agent.flow.yaml"
GATED = gated("echo waiting-on-you")


def _editor(path: Path, data_dir: Path) -> EditorWindow:
    editor = EditorWindow(str(path))
    editor.run_panels.data_dir = data_dir
    return editor


@pytest.fixture
def two_tabs(qloop, qtbot, tmp_path, service, monkeypatch):
    """A tabbed window: a gated workflow's tab, then a single-agent workflow's tab."""
    # the questions closing asks, of tabs the test opens too: discard, keep running
    monkeypatch.setattr(Questions, "save_changes", lambda self: "discard")
    monkeypatch.setattr(Questions, "live_run", lambda self: "keep")
    gated_path = tmp_path / "gated.flow.yaml"
    gated_path.write_text(GATED)
    other_path = tmp_path / SINGLE.name
    other_path.write_bytes(SINGLE.read_bytes())
    shell = TabbedWindow()
    qtbot.addWidget(shell)
    gated_tab = shell.add(_editor(gated_path, service.data_dir))
    other_tab = shell.add(_editor(other_path, service.data_dir), focus=False)
    shell.resize(1280, 800)
    shell.show()
    qtbot.waitExposed(shell)
    yield shell, gated_tab, other_tab

    async def let_go() -> None:  # every session and feed closed before the loop is
        for editor in shell.editors() if isValid(shell) else []:
            panels = editor.run_panels
            if panels.session is not None:
                await panels.session.close()
                panels.session = None
            if panels.feed is not None:
                await panels.feed.aclose()

    qloop.run_until_complete(let_go())


async def _service_status(service, run_id: str) -> str:
    async with service.info.client() as client:
        return str((await client.get_run(run_id)).get("status"))


def test_a_closed_tabs_run_stays_in_the_inbox_and_is_decided_from_there(
        two_tabs, qloop, until, service):
    shell, gated_tab, other_tab = two_tabs
    asked: list[str] = []

    def keep() -> str:
        asked.append("live run")
        return "keep"

    gated_tab.ask.live_run = keep  # type: ignore[method-assign]

    async def start() -> None:
        await gated_tab.run_panels.run()
        await until(lambda: len(gated_tab.run_panels.approvals.pending) == 1, 60)

    qloop.run_until_complete(start())
    run_id = gated_tab.run_panels.session.run_id
    approval_id = next(iter(gated_tab.run_panels.approvals.pending))
    inbox = other_tab.run_panels.approvals

    async def close_the_tab() -> None:
        assert shell.close_tab(gated_tab) is False  # it lets go of the run first
        await until(lambda: shell.tabs.count() == 1, 30)

    qloop.run_until_complete(close_the_tab())
    assert asked == ["live run"]  # closing asked what to do with it
    assert shell.current() is other_tab

    # the tab in front lists it, with its run, and the badge counts it
    qloop.run_until_complete(until(lambda: approval_id in inbox.others(), 30))
    assert inbox.others()[approval_id]["runId"] == run_id
    assert inbox.count() >= 1 and f"({inbox.count()})" in inbox.badge.text()
    row = next(r for r in inbox.row_texts() if "echo waiting-on-you" in r)
    assert row.startswith("Worker: ")  # the node's label, fetched from the run

    async def approve_from_the_inbox() -> None:
        decided = inbox.decide(approval_id, "approved")
        assert await decided is True
        await until(lambda: approval_id not in inbox.others(), 30)
        await until(lambda: shell.tabs.count() == 2, 30)  # the run came back, in a tab
        await until(lambda: shell.current().run_panels.session is not None, 30)
        for _ in range(3000):
            if await _service_status(service, run_id) == "completed":
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the run did not complete once approved")

    qloop.run_until_complete(approve_from_the_inbox())
    shown = shell.current()
    assert shown is not other_tab and shown.run_panels.session.run_id == run_id
    assert shown.run_origin is not None and shown.run_origin.name == run_id


def test_opening_another_runs_request_brings_its_run_up_with_the_dialog(
        two_tabs, qloop, until):
    shell, gated_tab, other_tab = two_tabs
    gated_tab.ask.live_run = lambda: "keep"  # type: ignore[method-assign]

    async def start_then_close() -> None:
        await gated_tab.run_panels.run()
        await until(lambda: len(gated_tab.run_panels.approvals.pending) == 1, 60)
        shell.close_tab(gated_tab)
        await until(lambda: shell.tabs.count() == 1, 30)

    qloop.run_until_complete(start_then_close())
    inbox = other_tab.run_panels.approvals
    qloop.run_until_complete(until(lambda: bool(inbox.others()), 30))
    approval_id = next(a for a, r in inbox.others().items()
                       if "waiting-on-you" in str(r.get("tool")))
    assert inbox.open_request(approval_id) is None  # decided in its run's own tab:
    assert shell.tabs.count() == 2
    brought = shell.current()
    assert brought is not other_tab
    # the run opens through the API: its request shows once the first page is in
    qloop.run_until_complete(until(lambda: brought.run_panels.approvals.dialog is not None,
                                   30))
    dialog = brought.run_panels.approvals.dialog
    assert dialog.isVisible() and dialog.approval_id == approval_id

    async def deny() -> None:
        dialog.deny()
        await until(lambda: not brought.run_panels.approvals.pending, 30)

    qloop.run_until_complete(deny())


def test_closing_a_tab_with_a_live_run_can_stop_it_or_cancel(two_tabs, qloop, until,
                                                              service):
    shell, gated_tab, _other = two_tabs
    answers = iter(["cancel", "stop"])
    gated_tab.ask.live_run = lambda: next(answers)  # type: ignore[method-assign]

    async def start() -> None:
        await gated_tab.run_panels.run()
        await until(lambda: len(gated_tab.run_panels.approvals.pending) == 1, 60)

    qloop.run_until_complete(start())
    run_id = gated_tab.run_panels.session.run_id
    assert shell.close_tab(gated_tab) is False
    assert shell.tabs.count() == 2 and gated_tab.run_panels.session is not None  # cancelled

    async def stop() -> str:
        shell.close_tab(gated_tab)
        await until(lambda: shell.tabs.count() == 1, 30)
        return await _service_status(service, run_id)

    assert qloop.run_until_complete(stop()) == "stopped"
