"""PATCH .../budget answers with the budget in force once its change is written, so clients
changing it at once each see what the last change left; a limit out of range is refused
saying the range."""

from __future__ import annotations

import asyncio

from api_helpers import Api, slow, workflow

from desktop.contract.state import BUDGET_MAX


async def test_each_budget_change_answers_the_budget_then_in_force(api: Api) -> None:
    run_id = (await api.start(workflow({"a": {
        "script": [{"say": "working"}, {"sleep": 60}],
        "budget": {"maxTokens": 1000, "maxWallSec": 600}}})))["id"]
    await api.until(run_id, lambda s: bool(s["runningTurns"]))
    url = f"/api/runs/{run_id}/budget"
    asked = [1100 + 100 * i for i in range(8)]
    answers = await asyncio.gather(*(api.json("PATCH", url, 200,
                                              {"nodeId": "a", "maxTokens": n})
                                     for n in asked))
    # each answer is the whole budget its change left: its own limit, the others kept
    assert sorted(a["budget"]["maxTokens"] for a in answers) == asked
    assert all(a["budget"]["maxWallSec"] == 600 for a in answers)
    state = await api.json("GET", f"/api/runs/{run_id}", 200)
    node_id = answers[0]["nodeId"]
    final = state["nodeConfigs"][node_id]["budget"]
    assert final in [a["budget"] for a in answers]  # one of them is what won, and says so
    run_budget = await api.json("PATCH", url, 200, {"maxCostUsd": 2.5})
    assert run_budget == {"nodeId": None, "budget": {"maxCostUsd": 2.5}}
    await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    await api.finished(run_id)


async def test_a_limit_beyond_the_range_is_refused_naming_it(api: Api) -> None:
    run_id = (await api.start(slow(60)))["id"]
    await api.until(run_id, lambda s: bool(s["runningTurns"]))
    url = f"/api/runs/{run_id}/budget"
    for field, value in (("maxCostUsd", 1e308), ("maxTokens", 2 * 10**12),
                         ("maxWallSec", BUDGET_MAX["maxWallSec"] + 1)):
        error = (await api.json("PATCH", url, 422, {field: value}))["error"]
        assert error["field"] == field and str(BUDGET_MAX[field]) in error["message"]
    state = await api.json("GET", f"/api/runs/{run_id}", 200)
    assert state.get("budget") is None  # nothing out of range was written
    await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    await api.finished(run_id)
