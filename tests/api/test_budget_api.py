"""Budgets over the API: the run summary's tokens and cost ("unknown" when no provider
reported one), what waits on a person after a budget paused the run, and raising it."""

from __future__ import annotations

from api_helpers import Api, workflow

SPEND = {"usage": {"inputTokens": 30, "outputTokens": 10, "repeat": 0, "everySec": 0.04}}


async def _row(api: Api, run_id: str) -> dict:
    return next(r for r in (await api.json("GET", "/api/runs", 200))["runs"]
                if r["id"] == run_id)


async def test_a_budget_pauses_the_run_and_raising_it_goes_on(api: Api) -> None:
    run_id = (await api.start(workflow({"a": {"script": [SPEND],
                                              "budget": {"maxTokens": 400}}})))["id"]
    state = await api.until(run_id, lambda s: s["status"] == "paused"
                            and s.get("budgetExceeded") and not s["runningTurns"])
    node_id = state["budgetExceeded"]["nodeId"]
    row = await _row(api, run_id)
    assert row["totalTokens"] >= 400
    assert row["costUsd"] == "unknown", "no provider reported a cost: not 0"
    [waiting] = [w for w in row["waiting"] if w["kind"] == "budget"]
    assert waiting["node"] == "A" and "tokens" in waiting["reason"]

    await api.json("PATCH", f"/api/runs/{run_id}/budget", 422, {"nodeId": "a"})
    await api.json("PATCH", f"/api/runs/{run_id}/budget", 422,
                   {"nodeId": "a", "maxTokens": 0})
    answer = await api.json("PATCH", f"/api/runs/{run_id}/budget", 200,
                            {"nodeId": "a", "maxTokens": 800})
    assert answer == {"nodeId": node_id, "budget": {"maxTokens": 800}}  # now in force
    await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "running"})
    state = await api.until(run_id, lambda s: s["status"] == "paused"
                            and s.get("budgetExceeded", {}).get("budget") == 800
                            and not s["runningTurns"])
    assert state["nodeUsage"][node_id]["inputTokens"] + \
        state["nodeUsage"][node_id]["outputTokens"] >= 800
    await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    await api.finished(run_id)
