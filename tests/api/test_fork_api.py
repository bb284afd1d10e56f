"""``POST /api/runs/{id}/fork`` and ``GET /api/runs/{id}/fork-points``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from api_helpers import Api, gated_shell
from forkkit import ROOT, events_of, lineage_free

from desktop.disk.paths import runs_dir

FLOW = str(ROOT / "resources" / "examples" / "plan-implement-review.flow.yaml")
SMALL = str(ROOT / "resources" / "examples" / "single-agent.flow.yaml")


async def _finished_source(api: Api, flow: str = FLOW) -> dict[str, Any]:
    run = await api.json("POST", "/api/runs", 201, {"workflowPath": flow})
    return await api.finished(run["id"])


def _folders(api: Api) -> set[Path]:
    return set(runs_dir(api.data).iterdir())


async def test_points_and_where_a_seq_lands(api: Api) -> None:
    source = await _finished_source(api)
    body = await api.json("GET", f"/api/runs/{source['id']}/fork-points", 200)
    assert [p["description"] for p in body["points"]][:2] == [
        "before Planner's turn 1", "before Implementer's turn 1"]
    reviewer = next(p for p in body["points"] if p["label"] == "Reviewer")
    inside = await api.json("GET", f"/api/runs/{source['id']}/fork-points?at="
                            f"{reviewer['seq'] + 3}", 200)
    assert inside["snap"]["seq"] == reviewer["seq"]
    assert "inside a turn" in inside["snap"]["note"]
    await api.json("GET", f"/api/runs/{source['id']}/fork-points?at=0", 422)


async def test_a_fork_with_edits_runs_and_keeps_the_source_prefix(api: Api) -> None:
    source = await _finished_source(api)
    points = (await api.json("GET", f"/api/runs/{source['id']}/fork-points", 200))["points"]
    reviewer = next(p for p in points if p["label"] == "Reviewer")
    item = next(e for e in events_of(runs_dir(api.data) / source["id"])
                if e["type"] == "inbox.queued" and e["nodeId"] == reviewer["nodeId"])["item"]
    created = await api.json("POST", f"/api/runs/{source['id']}/fork", 201, {
        "at": reviewer["seq"] + 2,
        "nodes": [{"node": "reviewer", "instructions": "Check empty names first."}],
        "items": [{"itemId": item["id"], "text": "Please review greet.py."}]})
    assert created["seq"] == reviewer["seq"] and created["requestedSeq"] == reviewer["seq"] + 2
    assert created["run"]["forkedFrom"] == {"runId": source["id"], "seq": reviewer["seq"]}
    assert created["workspaces"][0]["path"] == "workspace"
    fork_id = created["run"]["id"]
    state = await api.finished(fork_id)
    assert state["status"] == "completed"
    assert state["nodeConfigs"][reviewer["nodeId"]]["instructions"] == "Check empty names first."
    mine = events_of(runs_dir(api.data) / fork_id)
    theirs = events_of(runs_dir(api.data) / source["id"])
    seq = created["seq"]
    assert [lineage_free(e, fork_id) for e in mine[:seq]] == \
        [lineage_free(e, source["id"]) for e in theirs[:seq]]
    runs = {r["id"]: r for r in (await api.json("GET", "/api/runs", 200))["runs"]}
    assert runs[fork_id]["forkedFrom"] == {"runId": source["id"], "seq": seq}
    assert "forkedFrom" not in runs[source["id"]]


async def test_start_false_leaves_the_fork_paused_until_it_is_resumed(api: Api) -> None:
    source = await _finished_source(api, SMALL)
    created = await api.json("POST", f"/api/runs/{source['id']}/fork", 201,
                             {"at": 1, "start": False})
    fork_id = created["run"]["id"]
    assert created["run"]["status"] == "paused" and fork_id not in api.service.hosted
    await api.json("PATCH", f"/api/runs/{fork_id}", 200, {"status": "running"})
    assert (await api.finished(fork_id))["status"] == "completed"


async def test_a_live_run_can_be_forked_while_it_waits(api: Api) -> None:
    source = await api.start(gated_shell())
    await api.until(source["id"], lambda s: bool(s["pendingApprovals"]))
    created = await api.json("POST", f"/api/runs/{source['id']}/fork", 201, {"at": 10_000})
    fork_id = created["run"]["id"]
    assert "inside a turn" in created["point"]
    for run_id in (source["id"], fork_id):
        state = await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
        for approval_id in state["pendingApprovals"]:
            await api.json("POST", f"/api/approvals/{approval_id}/resolve", 200,
                           {"status": "approved"})
        assert (await api.finished(run_id))["status"] == "completed"


@pytest.mark.parametrize(("body", "status", "code", "field"), [
    ({"at": 0}, 422, "invalid_field", "at"),
    ({}, 422, "missing_field", "at"),
    ({"at": 5, "colour": "red"}, 422, "unknown_field", "colour"),
    ({"at": 5, "nodes": [{"node": "ghost", "model": "x"}]}, 422, "invalid_fork",
     "nodes.0.node"),
    ({"at": 5, "nodes": [{"node": "implementer", "provider": "gpt"}]}, 422, "invalid_fork",
     "nodes.0.provider"),
    ({"at": 5, "nodes": [{"node": "implementer"}]}, 422, "invalid_fork", "nodes.0"),
    ({"at": 5, "items": [{"itemId": "nope", "text": "x"}]}, 422, "invalid_fork",
     "items.0.itemId"),
])
async def test_a_bad_fork_is_refused_naming_the_field_and_makes_no_run(
        api: Api, body: dict[str, Any], status: int, code: str, field: str) -> None:
    source = await _finished_source(api, SMALL)
    before = _folders(api)
    answer = await api.json("POST", f"/api/runs/{source['id']}/fork", status, body)
    assert answer["error"]["code"] == code and answer["error"]["field"] == field
    assert _folders(api) == before
    await api.healthy()


async def test_forking_an_unknown_run_is_404(api: Api) -> None:
    await api.json("POST", "/api/runs/6a1f3a52-2f1e-4c8e-9a4d-1b2c3d4e5f60/fork", 404,
                   {"at": 1})
    await api.json("GET", "/api/runs/nope/fork-points", 404)


@pytest.mark.parametrize("how", ["GET fork-points?at=1", "POST fork"])
async def test_a_run_whose_log_was_emptied_is_named_when_it_has_no_point(
        api: Api, how: str) -> None:
    # the message took the run's id from its events, so an empty log left "run  has no
    # point between turns" with no run in it
    source = await _finished_source(api, SMALL)
    (runs_dir(api.data) / source["id"] / "events.jsonl").write_bytes(b"")
    if how.startswith("GET"):
        body = await api.json("GET", f"/api/runs/{source['id']}/fork-points?at=1", 409)
    else:
        body = await api.json("POST", f"/api/runs/{source['id']}/fork", 409, {"at": 1})
    assert body["error"]["code"] == "fork_conflict" and body["error"]["field"] == "at"
    assert body["error"]["message"].startswith(
        f"run {source['id'][:8]} has no point between turns to fork from"), body
