"""Node cards tell how each node ends and what comes next: done, failed, stopped, not run,
waiting, next; the modes shown agree; relative times keep counting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from desktop.ui.canvas import status_badge
from desktop.ui.run.canvas_overlay import STATUS_COLORS

ENDINGS = """
version: 1
name: Endings
task: go
nodes:
  - {id: lead, label: Lead, provider: scripted, entry: true, position: {x: 0, y: 0}}
  - {id: worker, label: Worker, provider: scripted, position: {x: 320, y: 0}}
  - {id: spare, label: Spare, provider: scripted, position: {x: 640, y: 0}}
nodeConfigs:
  lead: {script: [{handoff: {to: worker, message: "build it"}}]}
  worker: {script: [{say: "built"}, {done: true}]}
  spare: {script: [{say: "never asked"}]}
edges:
  - {from: lead, to: worker}
  - {from: lead, to: spare, type: report}
"""

STOPPABLE = """
version: 1
name: Stoppable
task: go
nodes:
  - {id: lead, label: Lead, provider: scripted, entry: true, position: {x: 0, y: 0}}
  - {id: worker, label: Worker, provider: scripted, position: {x: 320, y: 0}}
nodeConfigs:
  lead: {script: [{handoff: {to: worker, message: "wait"}}]}
  worker: {script: [{hang: true}]}
edges:
  - {from: lead, to: worker}
"""


@pytest.fixture
def open_flow(editor_window, tmp_path, service):
    def make(text: str):
        path = tmp_path / "flow.flow.yaml"
        path.write_text(text)
        assert editor_window.files.open_path(path)
        panels = editor_window.run_panels
        panels.data_dir = service.data_dir
        return panels
    yield make
    panels = editor_window.run_panels
    if panels.session is not None:
        import asyncio

        asyncio.get_event_loop().run_until_complete(panels.session.close())
        panels.session = None


def badge(panels, key: str):
    nodes = (panels.session.state or {}).get("nodes") or {}
    node_id = next(i for i, n in nodes.items() if n.get("key") == key)
    return panels.overlay.badges[node_id]


def status(panels) -> str:
    return (panels.session.state or {}).get("status", "")


def test_a_finished_run_shows_how_each_node_ended(qloop, open_flow, until):
    panels = open_flow(ENDINGS)

    async def go():
        await panels.run()
        await until(lambda: status(panels) == "completed")

    qloop.run_until_complete(go())
    assert badge(panels, "lead").status == "done"
    assert badge(panels, "worker").status == "done"
    assert badge(panels, "spare").status == "not run"
    assert badge(panels, "worker").text.startswith("done")
    assert badge(panels, "worker").color.name() == STATUS_COLORS["done"]
    assert "idle" not in {badge(panels, k).status for k in ("lead", "worker", "spare")}


def test_a_stopped_run_marks_the_node_it_interrupted(qloop, open_flow, until):
    panels = open_flow(STOPPABLE)

    async def go():
        await panels.run()
        await until(lambda: badge(panels, "worker").status == "running")
        await panels.stop()
        await until(lambda: status(panels) == "stopped")

    qloop.run_until_complete(go())
    assert badge(panels, "worker").status == "stopped"
    assert badge(panels, "lead").status == "done"


def test_interactive_shows_the_next_node_and_the_modes_agree(qloop, open_flow, until,
                                                             editor_window):
    panels = open_flow(ENDINGS)
    mode_widget = editor_window.inspector.widgets[("doc", "mode")][1]
    assert editor_window.editor.model.doc.mode == "AUTO"

    async def start():
        await panels.run(interactive=True)
        await until(lambda: status(panels) == "running" and panels.controls.active)

    qloop.run_until_complete(start())
    lead = badge(panels, "lead")
    assert lead.status == "next"  # its task is queued: it is not idle, Step runs it
    assert "next: Lead" in panels.controls.status_label.text()
    assert panels.controls.mode.currentText() == "INTERACTIVE"
    assert mode_widget.currentText() == "INTERACTIVE"  # the inspector agrees
    assert not mode_widget.isEnabled()

    async def step_once():
        panels.controls.step_action.trigger()
        await until(lambda: badge(panels, "worker").status == "next")

    qloop.run_until_complete(step_once())
    assert badge(panels, "lead").status != "next"

    async def stop():
        await panels.stop()
        await until(lambda: status(panels) == "stopped")
        await until(lambda: not panels.controls.active)

    qloop.run_until_complete(stop())
    # no run runs: both show the workflow's own mode, which the next Run uses
    assert panels.controls.mode.currentText() == "AUTO"
    assert mode_widget.currentText() == "AUTO" and mode_widget.isEnabled()
    assert badge(panels, "worker").status == "stopped"  # its input was never taken


def test_the_toolbar_sets_the_workflows_mode_when_no_run_runs(editor_window, qtbot):
    controls = editor_window.run_panels.controls
    controls.mode.setCurrentText("INTERACTIVE")
    controls.mode.activated.emit(controls.mode.currentIndex())
    assert editor_window.editor.model.doc.mode == "INTERACTIVE"
    editor_window.inspector.show_selection([], [])
    assert editor_window.inspector.widgets[("doc", "mode")][1].currentText() == "INTERACTIVE"


def test_relative_times_keep_counting_without_new_events(qloop, open_flow, until, qtbot,
                                                         monkeypatch):
    panels = open_flow(ENDINGS)

    async def go():
        await panels.run()
        await until(lambda: status(panels) == "completed")

    qloop.run_until_complete(go())
    worker = badge(panels, "worker")
    last = datetime.fromisoformat(worker.activity.replace("Z", "+00:00"))
    monkeypatch.setattr(status_badge, "utc_now", lambda: last + timedelta(seconds=7))
    qtbot.waitUntil(lambda: worker.text == "done · 7s ago", timeout=10000)
    monkeypatch.setattr(status_badge, "utc_now", lambda: last + timedelta(minutes=5))
    qtbot.waitUntil(lambda: worker.text == "done · 5m ago", timeout=10000)
    assert datetime.now(UTC) > last  # the clock was moved, not waited for


def test_a_replay_counts_relative_times_from_the_replayed_moment(example_window, past_run,
                                                                monkeypatch):
    later = datetime.now(UTC) + timedelta(hours=3)  # the run is long over by now
    monkeypatch.setattr(status_badge, "utc_now", lambda: later)
    panels = example_window.run_panels
    run_dir = past_run(example_window.file.path, "pir-replay")
    panels.replay(run_dir)
    total = panels.timeline.replay.total
    state = panels.timeline.seek(total // 2)
    badges = list(panels.overlay.badges.values())
    assert badges and all("m ago" not in b.text and "h ago" not in b.text for b in badges)
    moment = state["updatedAt"]
    active = [b for b in badges if b.activity]
    assert active and all(b.activity <= moment for b in active)
    import asyncio

    asyncio.run(panels.session.close())
    panels.session = None
