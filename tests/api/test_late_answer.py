"""An approval whose turn a budget cancelled is no longer open: answering it later gets a
409 that says so, never a 200 that reports the call approved."""

from __future__ import annotations

from api_helpers import GATED, Api, workflow


async def test_answering_a_question_of_a_cancelled_turn_is_refused(api: Api) -> None:
    run_id = (await api.start(workflow({"a": {
        "permissions": GATED,
        "script": [{"usage": {"inputTokens": 50, "outputTokens": 50}},
                   {"shell": "echo hi"}, {"say": "ran"}]}})))["id"]
    state = await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
    approval_id = next(iter(state["pendingApprovals"]))
    # its budget is lowered below what it spent: the run pauses, the turn is cancelled
    await api.json("PATCH", f"/api/runs/{run_id}/budget", 200,
                   {"nodeId": "a", "maxTokens": 10})
    await api.until(run_id, lambda s: s["status"] == "paused" and not s["runningTurns"])
    late = await api.json("POST", f"/api/approvals/{approval_id}/resolve", 409,
                          {"status": "approved"})
    assert late["error"]["code"] == "approval_resolved"
    assert "no longer pending" in late["error"]["message"]
    assert "budget exceeded" in late["error"]["message"]
    await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    await api.finished(run_id)
