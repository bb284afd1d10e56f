"""The window as a client of the service: detach and re-attach, a dead service, errors, threads."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

from run_flows import gated
from shiboken6 import isValid

from desktop.api.discovery import read_server_file
from desktop.graph.io import load_workflow, loads_workflow
from desktop.ui.app import until_every_window_closed
from desktop.ui.window import EditorWindow
from desktop.views.reader import LogTail

EXAMPLE = Path(__file__).parents[3] / "resources" / "examples" / "plan-implement-review.flow.yaml"

GATED = gated("echo one", "echo two")


def state(panels) -> dict:
    return (panels.session.state if panels.session else None) or {}


def log_events(run_dir: Path) -> list[dict]:
    return LogTail(run_dir).read_new()


def record_seqs(session) -> list[int]:
    """Every seq the session's bridge hands the views from now on."""
    seen: list[int] = []
    session.bridge.events.connect(lambda batch: seen.extend(e["seq"] for e in batch))
    return seen


async def approve_until_done(panels, until) -> None:
    while state(panels).get("status") not in ("completed", "failed", "stopped"):
        await until(lambda: bool(panels.approvals.pending)
                    or state(panels).get("status") in ("completed", "failed", "stopped"))
        if panels.approvals.pending:
            current = next(iter(panels.approvals.pending))
            panels.approvals.open_next().approve()
            await until(lambda c=current: c not in panels.approvals.pending)


def test_closing_the_window_leaves_the_run_running_and_a_new_window_sees_every_event(
        qloop, window_for, until, tmp_path, service):
    path = tmp_path / "gated.flow.yaml"
    path.write_text(GATED)
    editor_window = EditorWindow(str(path))  # closed (and deleted) by the test itself
    editor_window.ask.live_run = lambda: "keep"  # the question closing asks: keep it running
    editor_window.show()
    first = editor_window.run_panels
    first.data_dir = service.data_dir

    async def start():
        await first.run()
        await until(lambda: len(first.approvals.pending) == 1)

    qloop.run_until_complete(start())
    run_dir = first.session.run_dir

    async def close_window():
        editor_window.close()  # as the app does: on its running loop
        await until(lambda: not isValid(editor_window) or not editor_window.isVisible())

    qloop.run_until_complete(close_window())
    assert first.session is None  # the window let go of the run ...

    async def service_state() -> dict:
        async with service.info.client() as client:
            runs = {r["id"]: r for r in await client.list_runs()}
            return runs[run_dir.name]

    summary = qloop.run_until_complete(service_state())
    assert summary["live"] and summary["status"] == "running"  # ... the service did not

    _window, second = window_for(loads_workflow(GATED))
    session = second.open_run(run_dir)
    assert session.live
    seen = record_seqs(session)  # what the stream brings after the pages of the past
    qloop.run_until_complete(approve_until_done(second, until))
    assert state(second)["status"] == "completed"
    events = log_events(run_dir)
    after = session.follower.caught_up
    assert after + len(seen) == len(events)
    assert seen == list(range(after + 1, len(events) + 1))  # no gap, no duplicate
    assert second.session.model.store.count == len(events)


def test_the_app_outlives_its_last_window_while_another_opens_and_ends_after_that_one(
        qloop, qapp, until, tmp_path, service, caplog):
    """Closing the last window with a live run, as another window opens in the same turn:
    the app goes on for the new window, ends once that one closes, and the run lives on."""
    path = tmp_path / "gated.flow.yaml"
    path.write_text(GATED)
    first = EditorWindow(str(path))
    first.ask.live_run = lambda: "keep"  # closing over the live run: it keeps running
    first.show()
    first.run_panels.data_dir = service.data_dir

    async def start():
        await first.run_panels.run()
        await until(lambda: len(first.run_panels.approvals.pending) == 1)

    qloop.run_until_complete(start())
    run_dir = first.run_panels.session.run_dir
    caplog.set_level(logging.DEBUG, logger="desktop.ui.app")
    order: list[str] = []
    opened: list[EditorWindow] = []

    def open_another() -> None:
        qapp.lastWindowClosed.disconnect(open_another)
        opened.append(EditorWindow(str(path)))
        opened[0].show()
        order.append("second window shown")

    async def scenario():
        ending = asyncio.ensure_future(until_every_window_closed(qapp))
        qapp.lastWindowClosed.connect(open_another)
        first.close()  # detaches from the live run first, then closes itself
        await until(lambda: not isValid(first) or not first.isVisible())
        await until(lambda: bool(opened) and opened[0].isVisible())
        await until(lambda: "the app goes on" in caplog.text or ending.done())
        order.append("app ended" if ending.done() else "app goes on")
        opened[0].close()
        await asyncio.wait_for(ending, 30)
        order.append("app ended")

    qloop.run_until_complete(scenario())
    assert order == ["second window shown", "app goes on", "app ended"]

    async def service_state() -> dict:
        async with service.info.client() as client:
            return {r["id"]: r for r in await client.list_runs()}[run_dir.name]

    summary = qloop.run_until_complete(service_state())
    assert summary["live"] and summary["status"] == "running"


def test_a_killed_service_is_reported_and_a_restart_resumes_the_run(
        qloop, window_for, until, own_service):
    _window, panels = window_for(loads_workflow(GATED), own_service.data_dir)

    async def start():
        await panels.run()
        await until(lambda: len(panels.approvals.pending) == 1)

    qloop.run_until_complete(start())
    session = panels.session
    own_service.kill()
    qloop.run_until_complete(until(lambda: not panels.service.isHidden()))
    assert "service stopped" in panels.service.title.text()
    assert not session.running
    assert panels.controls.resume_action.isEnabled()  # the way back is offered

    panels.service.restart.click()
    qloop.run_until_complete(until(lambda: panels.service.isHidden() and session.running))
    info = read_server_file(own_service.data_dir)
    assert info is not None and info.pid != own_service.proc.pid  # a new service
    qloop.run_until_complete(approve_until_done(panels, until))
    events = log_events(session.run_dir)
    assert state(panels)["status"] == "completed"
    assert any(e["type"] == "run.resumed" for e in events)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert panels.session.model.store.count == len(events)


def test_an_interrupted_run_opened_from_its_folder_is_resumed_by_the_service(
        qloop, window_for, until, own_service):
    _window, first = window_for(loads_workflow(GATED), own_service.data_dir)

    async def start():
        await first.run()
        await until(lambda: len(first.approvals.pending) == 1)

    qloop.run_until_complete(start())
    run_dir = first.session.run_dir
    qloop.run_until_complete(first.session.close())  # the window let go, then ...
    first.session = None
    own_service.kill()  # ... the service died: nothing runs the run now

    _window, panels = window_for(loads_workflow(GATED), own_service.data_dir)
    panels.history.refresh()
    row = next(r for r in panels.history.rows if r.path == run_dir)
    assert row.status == "interrupted" and not row.live
    session = panels.open_run(run_dir)
    assert not session.live and not panels.service.isHidden()
    assert "interrupted" in panels.service.title.text()
    panels.service.restart.click()
    qloop.run_until_complete(until(lambda: panels.service.isHidden() and session.running))
    assert session.live
    qloop.run_until_complete(approve_until_done(panels, until))
    assert state(panels)["status"] == "completed"
    assert [e["seq"] for e in log_events(run_dir)] == list(range(1, len(log_events(run_dir)) + 1))


def test_a_refused_command_reaches_the_user_as_a_message(qloop, window_for, until):
    window, panels = window_for(load_workflow(EXAMPLE))
    messages: list[str] = []

    async def go():
        await panels.run()
        panels.session.failed.connect(messages.append)
        await until(lambda: state(panels).get("status") == "completed")
        await panels.session.step()  # the run is over: the service refuses

    qloop.run_until_complete(go())
    assert len(messages) == 1 and messages[0].startswith("Step:")
    assert window.statusBar().currentMessage() == messages[0]


def test_the_gui_process_runs_no_thread_of_its_own(qloop, window_for, until):
    # an earlier test's in-process agents (tests/ui/run/test_evaluations.py) may still be
    # reaped by asyncio's waitpid threads under load: only threads started here count
    before = {t.ident for t in threading.enumerate()}
    _window, panels = window_for(load_workflow(EXAMPLE))

    async def go():
        await panels.run()
        await until(lambda: state(panels).get("status") == "completed")

    qloop.run_until_complete(go())
    assert [t.name for t in threading.enumerate() if t.ident not in before] == []


def test_run_history_lists_a_live_run_and_open_attaches_to_it(
        qloop, window_for, until, own_service):
    """Reopening the app: Run history marks the run the service holds as live, and Open
    attaches to it (commands work) rather than showing it read-only."""
    _first, panels = window_for(loads_workflow(GATED), own_service.data_dir)

    async def start():
        await panels.run()
        await until(lambda: len(panels.approvals.pending) == 1)

    qloop.run_until_complete(start())
    run_dir = panels.session.run_dir
    qloop.run_until_complete(panels.session.close())
    panels.session = None

    _second, reopened = window_for(loads_workflow(GATED), own_service.data_dir)
    reopened.history.refresh()
    rows = {row.path.name: row for row in reopened.history.rows}
    assert rows[run_dir.name].live
    assert "live" in reopened.history.table.item(0, 1).text()
    reopened.history.table.selectRow(0)
    reopened.history.openRequested.emit(reopened.history.selected().path)
    session = reopened.session
    assert session is not None and session.live and session.run_dir == run_dir
    qloop.run_until_complete(until(lambda: len(reopened.approvals.pending) == 1))
    qloop.run_until_complete(approve_until_done(reopened, until))
    assert state(reopened)["status"] == "completed"
    assert reopened.session.model.store.count == len(log_events(run_dir))
