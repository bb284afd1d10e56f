"""The cards' budget meters on the canvas follow the run batch by batch: an update redoes
the meters of the nodes the batch touched and leaves the others alone, and a running turn
under a time limit counts its time on the canvas's clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import desktop.views.canvas_meters as canvas_meters
from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.runtime.run_setup import run_created_event
from desktop.ui.canvas import status_badge
from desktop.ui.run.canvas_overlay import CanvasRunOverlay
from desktop.ui.window import EditorWindow
from desktop.views.budget_meter import NEAR_LIMIT, OK, node_meter
from desktop.views.state import RunProjection

EXAMPLE = examples_dir() / "plan-implement-review.flow.yaml"
RUN = "11111111-2222-3333-4444-555555555555"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def started_run() -> tuple[RunProjection, dict[str, str]]:
    """The planner runs a turn since T0 against ten minutes; the reviewer may spend 1,000
    tokens and has spent 100."""
    doc = load_workflow(EXAMPLE)
    created = run_created_event(doc, RUN, mode="AUTO", global_mode="IMPLEMENTATION",
                                workflow_path=str(EXAMPLE))
    ids = {n["key"]: nid for nid, n in created["nodes"].items()}
    configs = created["nodeConfigs"]
    configs[ids["planner"]]["budget"] = {"maxWallSec": 600}
    configs[ids["reviewer"]]["budget"] = {"maxTokens": 1000}
    projection = RunProjection()
    projection.apply([
        {**created, "ts": at(0), "seq": 1},
        {"type": "run.started", "runId": RUN, "ts": at(0), "seq": 2},
        {"type": "turn.status", "runId": RUN, "ts": at(0), "seq": 3, "nodeId": ids["planner"],
         "status": "started", "turnId": "t1", "inboxItemIds": []},
        {"type": "telemetry.usage", "runId": RUN, "ts": at(0), "seq": 4,
         "nodeId": ids["reviewer"], "inputTokens": 100}])
    return projection, ids


def shown(editor_window: EditorWindow, monkeypatch) -> tuple[CanvasRunOverlay, Any, dict]:
    """The example's canvas showing a started run, a minute in: the overlay, the run's
    projection and the node ids by key."""
    assert editor_window.files.open_path(EXAMPLE)
    projection, ids = started_run()
    monkeypatch.setattr(status_badge, "utc_now", lambda: T0 + timedelta(seconds=60))
    overlay = CanvasRunOverlay(editor_window.scene, editor_window)
    overlay.source = projection
    overlay.apply_state(projection.state)
    return overlay, projection, ids


def test_an_update_redoes_the_touched_cards_meters_only(editor_window: EditorWindow,
                                                        monkeypatch) -> None:
    overlay, projection, ids = shown(editor_window, monkeypatch)
    now = T0 + timedelta(seconds=60)
    for node_id, badge in overlay.badges.items():
        assert badge.meter == node_meter(projection.state, node_id, now)
    assert overlay.badges[ids["planner"]].meter.percent == 10

    made: list[str] = []

    def counted(state: dict, node_id: str, when: datetime):
        made.append(node_id)
        return node_meter(state, node_id, when)

    monkeypatch.setattr(canvas_meters, "node_meter", counted)
    projection.apply([
        {"type": "message.assistant.delta", "runId": RUN, "ts": at(60), "seq": 5,
         "nodeId": ids["planner"], "text": "working"},
        {"type": "telemetry.usage", "runId": RUN, "ts": at(60), "seq": 6,
         "nodeId": ids["reviewer"], "inputTokens": 750}])
    overlay.apply_state(projection.state)
    assert made == [ids["reviewer"]], "one node's usage changed: one meter redone"
    reviewer = overlay.badges[ids["reviewer"]].meter
    assert reviewer.percent == 85 and reviewer.level == NEAR_LIMIT
    assert overlay.badges[ids["planner"]].meter.percent == 10
    assert overlay.badges[ids["implementer"]].meter is None

    # no event for minutes: the canvas's clock moves the time-limited card
    monkeypatch.setattr(status_badge, "utc_now", lambda: T0 + timedelta(seconds=510))
    overlay.refresh_times()
    planner = overlay.badges[ids["planner"]].meter
    assert planner.percent == 85 and planner.level == NEAR_LIMIT
    assert made == [ids["reviewer"], ids["planner"]]
    assert overlay.badges[ids["reviewer"]].meter is reviewer

    # the turn ends: its time is spent, and the card stops moving
    projection.apply([{"type": "turn.status", "runId": RUN, "ts": at(520), "seq": 7,
                       "nodeId": ids["planner"], "status": "completed", "turnId": "t1"}])
    monkeypatch.setattr(status_badge, "utc_now", lambda: T0 + timedelta(seconds=590))
    overlay.apply_state(projection.state)
    planner = overlay.badges[ids["planner"]].meter
    assert planner.percent == 86 and planner.level == NEAR_LIMIT
    overlay.clear()


def test_a_state_from_elsewhere_redoes_every_card(editor_window: EditorWindow,
                                                  monkeypatch) -> None:
    overlay, projection, ids = shown(editor_window, monkeypatch)
    replayed = {**projection.state, "nodeUsage": {}}  # a replayed moment, before usage
    overlay.apply_state(replayed)
    assert overlay.badges[ids["reviewer"]].meter.level == OK
    assert overlay.badges[ids["reviewer"]].meter.percent == 0
    overlay.apply_state(projection.state)  # back to the live run
    assert overlay.badges[ids["reviewer"]].meter.percent == 10
    overlay.clear()
