"""The window as a pure client: a run of a service whose folders it cannot read (another
data folder, as on another machine) opens through the API, a page of events, then the
stream, and shows what the same run shows opened beside the service, its diffs included; the
replay scrubber folds the events the API sent, and forks from them."""

from __future__ import annotations

import asyncio

from panel_window import Window, end_session
from run_flows import gated

import desktop.api.follow as follow
from desktop.contract.enums import RUN_ENDED
from desktop.graph.io import loads_workflow
from desktop.ui.run.attach import attach_run_panels
from desktop.ui.run.session import RunSession
from desktop.views.forks import scan_events
from desktop.views.reader import LogTail

GATED = gated("echo one > one.txt", "echo two")
def state(panels) -> dict:
    return (panels.session.state if panels.session else None) or {}


def rows(model) -> list[str]:
    return [str(model.data(model.index(r))) for r in range(model.rowCount())]


def node_states(state: dict) -> dict[str, str]:
    return {node_id: node["status"] for node_id, node in state["nodes"].items()}


async def approve_until_done(panels, until) -> None:
    while state(panels).get("status") not in RUN_ENDED:
        await until(lambda: bool(panels.approvals.pending)
                    or state(panels).get("status") in RUN_ENDED)
        if panels.approvals.pending:
            current = next(iter(panels.approvals.pending))
            panels.approvals.open_next().approve()
            await until(lambda c=current: c not in panels.approvals.pending)


def test_a_run_whose_folder_the_window_cannot_read_opens_through_the_api(
        qloop, window_for, until, own_service, tmp_path, monkeypatch):
    monkeypatch.setattr(follow, "PAGE_SIZE", 3)  # a past of several pages
    _first, starter = window_for(loads_workflow(GATED), own_service.data_dir)

    async def start():
        await starter.run()
        await until(lambda: len(starter.approvals.pending) == 1)

    qloop.run_until_complete(start())
    run_id = starter.session.run_id
    served = own_service.data_dir / "runs" / run_id
    qloop.run_until_complete(starter.session.close())
    starter.session = None

    elsewhere = tmp_path / "another-machine"  # no server.json, no runs folder
    _remote_window, remote = window_for(loads_workflow(GATED), elsewhere)
    remote.remote = own_service.info
    session = remote.open_run(elsewhere / "runs" / run_id)
    seen: list[int] = []
    session.bridge.events.connect(lambda batch: seen.extend(e["seq"] for e in batch))
    qloop.run_until_complete(until(lambda: len(remote.approvals.pending) == 1))
    assert session.live and session.follower.pages > 1
    caught_up = session.follower.caught_up
    qloop.run_until_complete(approve_until_done(remote, until))
    assert state(remote)["status"] == "completed"

    diffs = remote.diffs  # the turn's diff, fetched by artifact id: no folder to read here
    qloop.run_until_complete(until(lambda: [f.path for f in diffs.files] == ["one.txt"]))
    assert diffs.diffs and diffs.fetch is not None and not diffs.diffs[-1].path.exists()
    assert "+one" in diffs.unified.toPlainText()

    events = LogTail(served).read_new()
    assert caught_up < len(events)  # the stream went on after the pages ...
    assert seen == list(range(caught_up + 1, len(events) + 1))  # ... from the next seq
    shown = [e["seq"] for e in session.model.store.events]  # the pages, then the stream
    assert shown == list(range(1, len(events) + 1))  # without a gap or a duplicate
    assert not (elsewhere / "runs").exists()  # nothing was read, or made, in a folder
    assert session.model.store.count == len(events)

    _beside_window, beside = window_for(loads_workflow(GATED), own_service.data_dir)
    # read-only from its folder (the service may hold the ended run a moment longer)
    local = RunSession(served, beside, data_dir=own_service.data_dir)
    beside.show_session(local)
    qloop.run_until_complete(until(lambda: not local.model.indexing))
    assert not local.live
    assert rows(session.model) == rows(local.model)
    assert node_states(session.state) == node_states(local.state)
    assert session.state["lastSeq"] == local.state["lastSeq"] == len(events)

    replayed = remote.replay(elsewhere / "runs" / run_id)  # the scrubber, on the API's events
    qloop.run_until_complete(until(lambda: remote.timeline.replay is not None))
    assert replayed.run_id == run_id and remote.timeline.replay.total == len(events)
    approved = next(e["seq"] for e in events if e["type"] == "approval.resolved")
    before = remote.timeline.seek(approved - 1)
    after = remote.timeline.seek(approved)
    assert before["pendingApprovals"] and not after["pendingApprovals"]
    assert remote.timeline.seek(len(events))["status"] == "completed"
    qloop.run_until_complete(until(lambda: not session.live))  # the one it replaced

    point = scan_events(events).points[0]  # Fork from here…, on the API's events too
    remote.timeline.seek(point.seq)
    dialog = remote.forks.fork_from(point.seq)
    assert dialog is not None and dialog.snap.point == point
    dialog.accept()
    qloop.run_until_complete(until(lambda: remote.session.run_id != run_id))
    qloop.run_until_complete(approve_until_done(remote, until))
    fork = remote.session.run_id
    first = LogTail(own_service.data_dir / "runs" / fork).read_new()[0]
    assert first["forkedFrom"] == {"runId": run_id, "seq": point.seq}
    assert state(remote)["status"] == "completed" and not remote.replaying
    assert not (elsewhere / "runs").exists()


def test_set_to_another_machine_the_window_runs_lists_and_opens_there(
        qloop, qtbot, until, own_service, tmp_path):
    """Run starts the workflow on that service (the document travels in the request), Run
    history lists its runs, Open takes the run through the API, and Run again starts the
    graph the service recorded."""
    elsewhere = tmp_path / "another-machine"
    window = Window(loads_workflow(GATED))
    panels = attach_run_panels(window, window.parts, elsewhere, follow_service=True)

    def detach(_window) -> None:
        end_session(qloop, panels)
        panels.release()
        qloop.run_until_complete(asyncio.gather(*(f.aclose() for f in (panels.feed,
                                                                          panels.runs_feed))))

    qtbot.addWidget(window, before_close_func=detach)
    panels.set_remote(own_service.info)

    async def run_it():
        session = await panels.run()
        await approve_until_done(panels, until)
        return session

    started = qloop.run_until_complete(run_it())
    assert started is not None and state(panels)["status"] == "completed"
    served = own_service.data_dir / "runs" / started.run_id
    assert LogTail(served).read_new()[-1]["seq"] == state(panels)["lastSeq"]

    def listed_done() -> bool:
        if not any(r.run_id == started.run_id and r.status == "completed"
                   for r in panels.history.rows):
            panels.history.refresh()  # the list taken while it ran is replaced
            return False
        return True

    qloop.run_until_complete(until(listed_done))
    row = next(r for r in panels.history.rows if r.run_id == started.run_id)
    assert not row.path.exists()
    panels.history.openRequested.emit(row.path)
    reopened = panels.session
    assert reopened is not started and reopened.remote == own_service.info
    qloop.run_until_complete(until(lambda: state(panels).get("status") == "completed"))
    assert rows(reopened.model) and reopened.follower.pages >= 1
    assert not (elsewhere / "runs").exists()

    async def again():  # Run again: the graph comes from the service's first page
        session = await panels.run_again(row.path)
        await approve_until_done(panels, until)
        return session

    second = qloop.run_until_complete(again())
    assert second is not None and second.run_id != started.run_id
    assert state(panels)["status"] == "completed" and state(panels)["workflowName"] == "Gated"
    assert (own_service.data_dir / "runs" / second.run_id).is_dir()
    assert not (elsewhere / "runs").exists()
