"""Runs driven from the window: examples in both modes, approvals, stalls, replay, history."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from run_flows import gated

from desktop.contract import client_origin as origin
from desktop.graph.io import load_workflow, loads_workflow
from desktop.store.reducer import fold_events
from desktop.store.runs import engine_alive
from desktop.views.notices import HandoffSent
from desktop.views.reader import LogTail

PIR = Path(__file__).parents[3] / "resources" / "examples" / "plan-implement-review.flow.yaml"
EXAMPLES = sorted((Path(__file__).parents[3] / "resources" / "examples").glob("*.flow.yaml"))

GATED = gated("echo one", "echo two", "echo three")

LOOP = """
version: 1
name: Loop
task: go round
nodes:
  - {id: a, label: A, provider: scripted, entry: true}
  - {id: b, label: B, provider: scripted}
nodeConfigs:
  a: {stallThreshold: 2, script: [{say: same again}]}
  b: {stallThreshold: 5, script: [{say: "back to you"}]}
edges:
  - {from: a, to: b, type: handoff}
  - {from: b, to: a, type: handoff}
"""


def status(panels) -> str:
    return ((panels.session.state if panels.session else None) or {}).get("status", "")


def all_events(panels) -> list[dict]:
    return LogTail(panels.session.run_dir).read_new()


def approve_what_waits(panels, approved: set[str]) -> None:
    """Approve pending tool calls through their dialog, as a user of a gated example would."""
    for approval_id in list(panels.approvals.pending):
        if approval_id not in approved:
            approved.add(approval_id)
            panels.approvals.open_request(approval_id).approve()


async def until_finished(panels, until) -> None:
    approved: set[str] = set()

    async def tick() -> bool:
        approve_what_waits(panels, approved)
        return status(panels) in ("completed", "failed", "stopped")

    while not await tick():
        await until(lambda: status(panels) in ("completed", "failed", "stopped")
                    or bool(panels.approvals.pending), timeout=60)
        await asyncio.sleep(0.05)


def test_the_status_bar_stops_saying_starting_once_the_run_is_made(qloop, window_for,
                                                                    until):
    from desktop.ui.run.attach import STARTING

    window, panels = window_for(load_workflow(PIR))
    said: list[str] = []
    window.statusBar().messageChanged.connect(said.append)

    async def go():
        await panels.run()
        await until_finished(panels, until)

    qloop.run_until_complete(go())
    assert status(panels) == "completed"
    assert STARTING in said
    assert window.statusBar().currentMessage() != STARTING



def waiting_nodes(state: dict) -> set[str]:
    """Nodes with something in their inbox."""
    return {n for n, items in (state.get("inboxes") or {}).items() if items}


def agent_turns(state: dict) -> list[str]:
    """Running turns of agents (a subflow node's step lasts while its inside works)."""
    nodes = state.get("nodes") or {}
    return [n for n in state.get("runningTurns") or {}
            if not (nodes.get(n) or {}).get("subflow")]

@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_examples_run_to_completion_in_auto_mode(qloop, window_for, until, example):
    _window, panels = window_for(load_workflow(example))

    async def go():
        await panels.run()
        await until_finished(panels, until)

    qloop.run_until_complete(go())
    assert status(panels) == "completed"
    # the transcript model saw every event: each row is a distinct event of the log
    model = panels.session.model
    assert model.store.count == len(all_events(panels))
    assert not panels.controls.stop_action.isEnabled()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_examples_step_through_in_interactive_mode(qloop, window_for, until, example):
    _window, panels = window_for(load_workflow(example))

    async def go():
        await panels.run(interactive=True)
        await until(lambda: status(panels) == "running")
        approved: set[str] = set()
        deadline = asyncio.get_running_loop().time() + 60
        while asyncio.get_running_loop().time() < deadline:
            if status(panels) == "completed":
                return
            approve_what_waits(panels, approved)
            state = panels.session.state
            if any(state.get("inboxes", {}).values()) and not agent_turns(state):
                assert panels.controls.step_action.isEnabled()
                waiting = waiting_nodes(state)
                panels.controls.step_action.trigger()
                # a turn starts, or a subflow node hands its input to the node inside
                await until(lambda w=waiting: agent_turns(panels.session.state)
                            or waiting_nodes(panels.session.state) != w)
            await asyncio.sleep(0.05)

    qloop.run_until_complete(go())
    assert status(panels) == "completed"
    assert panels.session.state["mode"] == "INTERACTIVE"


def test_approve_deny_modify_through_the_dialog(qloop, window_for, until, qtbot):
    origin.declare(origin.APP)  # as the app does at its start (ui/app.py)
    _window, panels = window_for(loads_workflow(GATED))
    decisions = iter([("approve", None), ("deny", None), ("modify", '{"cmd": "echo changed"}')])

    async def go():
        await panels.run()
        for _ in range(3):
            await until(lambda: len(panels.approvals.pending) == 1)
            assert "(1)" in panels.approvals.badge.text()
            dialog = panels.approvals.open_next()
            current = dialog.approval_id
            how, args = next(decisions)
            if how == "modify":
                dialog.modify()
                dialog.args_edit.setPlainText("[not an object")
                dialog.modify()
                assert "JSON" in dialog.error.text()  # validated before sending
                assert dialog.approval_id in panels.approvals.pending
                dialog.args_edit.setPlainText(args)
                dialog.modify()
            else:
                getattr(dialog, how)()
            await until(lambda c=current: c not in panels.approvals.pending)
        await until(lambda: status(panels) in ("completed", "failed"))

    qloop.run_until_complete(go())
    resolved = [e["resolution"] for e in all_events(panels) if e["type"] == "approval.resolved"]
    assert [r["status"] for r in resolved] == ["approved", "denied", "modified"]
    assert all(r.get("by") == "gui" for r in resolved)  # a person, in the app
    assert resolved[2]["modifiedArgs"] == {"cmd": "echo changed"}
    assert "(0)" in panels.approvals.badge.text()


def test_stall_banner_shows_the_evidence_and_resumes(qloop, window_for, until):
    _window, panels = window_for(loads_workflow(LOOP))

    async def go():
        await panels.run()
        await until(lambda: not panels.stall.isHidden())

    qloop.run_until_complete(go())
    stalled = [e for e in all_events(panels) if e["type"] == "run.stalled"][-1]
    assert "A looks stuck" in panels.stall.title.text()
    assert "output" in panels.stall.title.text()
    samples = panels.stall.sample_texts(stalled)
    assert len(samples) == 2 and all("same again" in s for s in samples)
    assert status(panels) == "paused"

    async def stop():
        await panels.stop()
        await until(lambda: status(panels) == "stopped")

    qloop.run_until_complete(stop())
    assert panels.stall.isHidden()


def test_history_lists_runs_and_replay_shows_the_state_at_event_n(qloop, window_for, until,
                                                                   own_service):
    _window, panels = window_for(load_workflow(PIR), own_service.data_dir)

    async def go():
        await panels.run()
        await until(lambda: status(panels) == "completed")
        # The service lets the run's engine go a moment after run.completed; until then
        # opening the run attaches to it (test_fork_gui replays one that way).
        await until(lambda: not engine_alive(panels.session.run_dir))

    qloop.run_until_complete(go())
    run_dir = panels.session.run_dir
    panels.history.refresh()
    assert [r.path for r in panels.history.rows] == [run_dir]
    assert panels.history.rows[0].status == "completed"
    panels.history.table.selectRow(0)
    panels.history.replayRequested.emit(panels.history.rows[0].path)
    assert panels.replaying and not panels.session.live
    events = all_events(panels)
    for n in (1, len(events) // 2, len(events)):
        state = panels.timeline.seek(n)
        expected = fold_events(events[:n]).to_json_dict()
        assert state["status"] == expected["status"]
        assert state["lastSeq"] == n
        assert {k: v["status"] for k, v in state["nodes"].items()} == \
            {k: v["status"] for k, v in expected["nodes"].items()}
        assert panels.session.model.store.count >= n
        assert all(panels.session.model.position(r) < n
                   for r in range(panels.session.model.rowCount()))


FAILING = """
version: 1
name: Failing
task: hand off, then fail
nodes:
  - {id: a, label: Planner, provider: scripted, entry: true}
  - {id: b, label: Builder, provider: scripted}
nodeConfigs:
  a: {script: [{say: "over to you"}]}
  b: {script: [{fail: "the build broke at step 3"}]}
edges:
  - {from: a, to: b, type: handoff}
"""


def test_a_failed_turn_shows_its_node_and_stderr_and_the_handoff_flies(qloop, window_for,
                                                                       until):
    _window, panels = window_for(loads_workflow(FAILING))
    flown: list = []
    panels.notices.subscribe(HandoffSent, flown.append)

    async def go():
        await panels.run()
        await until(lambda: not panels.failure.isHidden())

    qloop.run_until_complete(go())
    names = {nid: n["label"] for nid, n in panels.session.state["nodes"].items()}
    assert [(names[f.from_node], names[f.to_node]) for f in flown] == [("Planner", "Builder")]
    assert "Builder failed:" in panels.failure.title.text()
    assert "the build broke at step 3" in panels.failure.tail.toPlainText()


def test_retry_on_a_failed_run_runs_the_failed_turn_again(qloop, window_for, until,
                                                          tmp_path: Path):
    """The failure banner offers Retry once the run has failed; after the user fixes the
    cause, it resumes the run, the failed turn runs again and the run completes."""
    flag = tmp_path / "service-is-up"
    doc = loads_workflow(FAILING.replace(
        "{id: b, label: Builder, provider: scripted}",
        "{id: b, label: Builder, provider: command}").replace(
        '{script: [{fail: "the build broke at step 3"}]}',
        f'{{command: sh, args: ["-c", "test -f {flag}"], limits: {{retries: 0}}}}'))

    async def fail() -> None:
        await panels.run()
        await until(lambda: status(panels) == "failed"
                    and panels.failure.retry_button.isVisibleTo(panels.failure))

    _window, panels = window_for(doc)
    qloop.run_until_complete(fail())
    assert not panels.failure.isHidden()
    assert panels.controls.resume_action.isEnabled()
    flag.write_text("")

    async def retry() -> None:
        panels.failure.retry_button.click()
        await until(lambda: status(panels) == "completed")

    qloop.run_until_complete(retry())
    builder = next(i for i, n in panels.session.state["nodes"].items()
                   if n["label"] == "Builder")
    assert panels.session.state["turns"][builder] == 1
    assert panels.failure.isHidden()  # the failure it showed is over


def test_stop_from_the_toolbar_asks_first_and_esc_keeps_the_run(qloop, window_for, until):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    _window, panels = window_for(loads_workflow(GATED))

    async def waiting():
        await panels.run()
        await until(lambda: len(panels.approvals.pending) == 1)

    qloop.run_until_complete(waiting())
    panels.controls.stop_action.trigger()
    box = panels.stop_box
    assert box is not None and box.isVisible() and "Stop “Gated”?" in box.text()
    QTest.keyClick(box, Qt.Key.Key_Escape)
    assert not box.isVisible()
    panels.controls.stop_action.trigger()
    again = panels.stop_box
    QTest.keyClick(again, Qt.Key.Key_Return)  # Enter is the Stop button

    async def stopped():
        await until(lambda: status(panels) == "stopped")

    qloop.run_until_complete(stopped())
    stops = [e for e in all_events(panels) if e["type"] == "run.stopped"]
    assert len(stops) == 1  # the first question, answered with Esc, stopped nothing
