"""A run that needs the user while they look elsewhere shows a desktop notification;
clicking it brings the run's tab up (opened again if it was closed) and focuses what
waits. The system tray is replaced by a recording one at the seam (``tray``, in
tests/ui/conftest.py)."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid

from desktop.graph.resources import examples_dir
from desktop.ui.tabs import TabbedWindow
from desktop.ui.window import EditorWindow

SINGLE = examples_dir() / "single-agent.flow.yaml"
PIR = examples_dir() / "plan-implement-review.flow.yaml"


@pytest.fixture
def shell(qtbot, monkeypatch, tmp_path):
    window = TabbedWindow()
    qtbot.addWidget(window)
    path = tmp_path / PIR.name
    path.write_bytes(PIR.read_bytes())
    first = EditorWindow()
    assert first.files.open_path(path)
    window.add(first)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    yield window
    for editor in window.editors() if isValid(window) else []:
        session = editor.run_panels.session
        if session is not None:
            asyncio.run(session.close())
            editor.run_panels.session = None
        monkeypatch.setattr(editor.ask, "save_changes", lambda: "discard")


@pytest.fixture
def run_copy(past_run, tmp_path) -> Path:
    """A finished run's folder of a test's own (the test appends to its log)."""
    import shutil

    source = past_run(SINGLE, "single")
    target = tmp_path / "data" / "runs" / source.name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("worktrees"))
    return target


def look_away(qtbot) -> None:
    """The user turns to another application: no window of the app is active."""
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is other)
    other.close()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is None)


def happen(editor, run_dir: Path, *events: dict) -> None:
    """``events`` are appended to the run's log and reach the tab as they would live."""
    session = editor.run_panels.session
    seq = session.bridge_last_seq()
    lines = []
    for i, event in enumerate(events, 1):
        lines.append({"id": str(uuid.uuid4()), "ts": "2026-01-01T00:00:00.000Z",
                      "runId": session.run_id, "seq": seq + i, **event})
    with open(run_dir / "events.jsonl", "a", encoding="utf-8") as log:
        log.writelines(json.dumps(line) + "\n" for line in lines)
    session.bridge.push(lines)
    session.bridge.drain()


def approval(node_id: str) -> dict:
    return {"type": "approval.requested", "approvalId": "ap-1", "nodeId": node_id,
            "kind": "tool", "tool": {"name": "Bash", "args": {"command": "make deploy"}}}


def open_run(shell, run_dir: Path):
    shell.current().run_panels.history.openRequested.emit(run_dir)
    run_tab = shell.current()
    assert run_tab.run_panels.session.run_dir == run_dir
    return run_tab


def node_of(run_tab) -> str:
    return next(iter(run_tab.run_panels.session.state["nodes"]))


def test_a_request_while_the_user_looks_elsewhere_notifies_and_a_click_focuses_it(
        shell, tray, run_copy, qtbot):
    run_tab = open_run(shell, run_copy)
    assert tray.shown == []  # the run's past (it completed) is not news
    shell.tabs.setCurrentIndex(0)  # the user went back to the workflow's tab...
    look_away(qtbot)  # ...and then to another application
    happen(run_tab, run_copy, approval(node_of(run_tab)))
    [(nudge, window)] = tray.shown
    assert window is run_tab and nudge.item == "ap-1"
    assert nudge.title == "Single agent waits for your approval"
    assert "make deploy" in nudge.text
    tray.clicked.emit()
    assert shell.current() is run_tab
    qtbot.waitUntil(lambda: QApplication.activeWindow() is shell)
    inbox = run_tab.run_panels.approvals
    assert inbox.current_id() == "ap-1"
    qtbot.waitUntil(inbox.list.hasFocus)


def test_nothing_shows_while_the_app_is_the_active_window(shell, tray, run_copy, qtbot):
    run_tab = open_run(shell, run_copy)
    shell.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is shell)
    happen(run_tab, run_copy, approval(node_of(run_tab)))
    assert run_tab.run_panels.approvals.pending  # the request did arrive
    assert tray.shown == []
    look_away(qtbot)
    happen(run_tab, run_copy, {"type": "approval.resolved", "approvalId": "ap-1",
                               "resolution": {"status": "approved"}})
    assert tray.shown == []  # the one seen while active is not told again


def test_a_kind_turned_off_stays_quiet(shell, tray, run_copy, qtbot):
    from desktop.ui.run.notifier import app_notifier

    run_tab = open_run(shell, run_copy)
    app_notifier().set_enabled({"pauses", "ends"})
    look_away(qtbot)
    happen(run_tab, run_copy, approval(node_of(run_tab)))
    assert tray.shown == []
    happen(run_tab, run_copy, {"type": "run.paused", "reason": "paused: merge conflict"})
    assert [n.target for n, _w in tray.shown] == ["paused"]


def test_a_click_reopens_the_runs_tab_when_it_was_closed(shell, tray, run_copy, qtbot,
                                                         monkeypatch):
    run_tab = open_run(shell, run_copy)
    look_away(qtbot)
    happen(run_tab, run_copy, approval(node_of(run_tab)))
    assert len(tray.shown) == 1
    monkeypatch.setattr(run_tab.ask, "save_changes", lambda: "discard")
    tabs = shell.tabs.count()
    assert shell.close_tab(run_tab)
    assert shell.tabs.count() == tabs - 1
    tray.clicked.emit()
    assert shell.tabs.count() == tabs
    again = shell.current()
    assert again is not run_tab and again.run_panels.session.run_dir == run_copy
    inbox = again.run_panels.approvals
    assert inbox.current_id() == "ap-1"  # still pending in the run's log
    qtbot.waitUntil(inbox.list.hasFocus)


def test_the_end_of_a_run_without_a_result_branch_points_at_what_it_did_leave(
        shell, tray, run_copy, qtbot):
    run_tab = open_run(shell, run_copy)  # its one node worked in the workspace itself
    assert not any(node.get("git") for node in run_tab.run_panels.session.state["nodes"].values())
    look_away(qtbot)
    happen(run_tab, run_copy, {"type": "run.resumed"}, {"type": "run.completed"})
    [(nudge, _window)] = tray.shown
    assert nudge.title == "Single agent completed"
    assert "result is ready" not in nudge.text and "Diffs tab" in nudge.text
    tray.clicked.emit()
    assert shell.current() is run_tab
    assert run_tab.run_panels.docks["diffs"].isVisible()


def test_without_a_system_tray_the_window_asks_for_attention_in_its_status_bar(
        editor_window):
    from PySide6.QtWidgets import QSystemTrayIcon

    from desktop.ui.run.nudge_tray import WindowAlert, system_tray
    from desktop.views.nudges import Nudge

    fallback = system_tray(editor_window)
    if QSystemTrayIcon.isSystemTrayAvailable():
        pytest.skip("this desktop has a system tray")
    assert isinstance(fallback, WindowAlert)
    fallback.show(Nudge("ends", "r", "Review completed", "Its result is ready to review.",
                        "result"), editor_window)
    assert editor_window.statusBar().currentMessage() == \
        "Review completed. Its result is ready to review."


def test_without_a_system_tray_a_tabs_message_shows_in_its_own_status_bar(shell):
    from PySide6.QtWidgets import QStatusBar

    from desktop.ui.run.nudge_tray import WindowAlert
    from desktop.views.nudges import Nudge

    tab = shell.current()
    WindowAlert().show(Nudge("ends", "r", "Review completed", "Its result is ready to review.",
                             "result"), tab)
    assert tab.statusBar().currentMessage() == \
        "Review completed. Its result is ready to review."
    # the tab window grows no second status bar, which would stay as an empty strip
    assert [bar for bar in shell.findChildren(QStatusBar) if bar.parent() is shell] == []


def test_a_request_of_a_run_no_tab_shows_notifies_and_a_click_opens_it(
        shell, tray, past_run, qtbot):
    import os
    import shutil

    from desktop.ui.run.approval_feed import RunInfo

    source = past_run(SINGLE, "single")
    run_dir = Path(os.environ["AGENT_CANVAS_DATA_DIR"]) / "runs" / source.name
    shutil.copytree(source, run_dir, ignore=shutil.ignore_patterns("worktrees"))
    feed = shell.current().run_panels.feed
    before = {"old": {"runId": "another-run", "kind": "tool", "tool": {"name": "Bash"}}}
    feed._took((before, {}, []))  # the service's first answer: what waited before the app
    look_away(qtbot)
    feed._took((before, {}, []))
    assert tray.shown == []
    log = run_dir / "events.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    nodes = json.loads(lines[0])["nodes"]
    request = {**approval(next(iter(nodes))), "id": str(uuid.uuid4()), "seq": len(lines) + 1,
               "ts": "2026-01-01T00:00:00.000Z", "runId": run_dir.name}
    with log.open("a", encoding="utf-8") as fh:  # the service writes it; no tab shows it
        fh.write(json.dumps(request) + "\n")
    feed.runs[run_dir.name] = RunInfo("Single agent")
    feed._took(({**before, "ap-1": request}, {}, []))
    [(nudge, _window)] = tray.shown
    assert (nudge.run_id, nudge.item) == (run_dir.name, "ap-1")
    assert nudge.title == "Single agent waits for your approval"
    tabs = shell.tabs.count()
    tray.clicked.emit()
    assert shell.tabs.count() == tabs + 1
    opened = shell.current()
    assert opened.run_panels.session.run_dir == run_dir
    assert opened.run_panels.approvals.current_id() == "ap-1"
    qtbot.waitUntil(opened.run_panels.approvals.list.hasFocus)


def test_a_run_no_tab_shows_that_ends_notifies_and_a_click_opens_its_result(
        qloop, shell, tray, past_run, qtbot):
    import os
    import shutil

    source = past_run(SINGLE, "ended")
    run_dir = Path(os.environ["AGENT_CANVAS_DATA_DIR"]) / "runs" / source.name
    shutil.copytree(source, run_dir, ignore=shutil.ignore_patterns("worktrees"))
    feed = shell.current().run_panels.feed

    def listed(status: str, *waiting: dict) -> list[dict]:
        row = {"id": run_dir.name, "status": status, "workflowName": "Single agent",
               "waiting": list(waiting)}
        if status == "completed":  # as the service lists a run with a result branch
            row["result"] = {"nodeId": "n", "node": "implementer", "branch": "canvas/x/n",
                             "repo": str(run_dir), "applied": []}
        return [row]

    feed._took(({}, {}, listed("running")))  # the first answer: it was running then
    look_away(qtbot)
    stall = {"kind": "stall", "nodeId": "n", "node": "Implementer", "reason": "silent"}
    feed._took(({}, {}, listed("paused", stall)))
    [(paused, _window)] = tray.shown
    assert (paused.run_id, paused.kind, paused.title, paused.text) == \
        (run_dir.name, "pauses", "Single agent paused", "Implementer: silent")
    feed._took(({}, {}, listed("running")))
    feed._took(({}, {}, listed("completed")))
    (ended, _window) = tray.shown[-1]
    assert (ended.run_id, ended.kind, ended.title, ended.text) == \
        (run_dir.name, "ends", "Single agent completed", "Its result is ready to review.")
    feed._took(({}, {}, listed("completed")))  # listed again: not news
    assert len(tray.shown) == 2
    tabs = shell.tabs.count()
    tray.clicked.emit()
    assert shell.tabs.count() == tabs + 1
    opened = shell.current()
    assert opened.run_panels.session.run_dir == run_dir
    assert opened.run_panels.docks["result"].isVisible()
