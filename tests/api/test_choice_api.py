"""A best-of-N choice over REST: listed with each attempt's diffstat and output, refused
when the index names no attempt that can win (the choice still waits), then resolved:
the attempt chosen is the one the next node works on."""

from __future__ import annotations

from pathlib import Path

from api_helpers import Api, workflow


def two_ways() -> dict:
    """``impl`` tries twice (the attempts write different files); ``check`` lists what
    it then sees."""
    return workflow({
        "impl": {"attempts": [{"model": "a"}, {"model": "b"}], "script": {"models": {
            "a": [{"edit": {"path": "one.txt", "content": "1\n"}}, {"say": "one"}],
            "b": [{"edit": {"path": "two.txt", "content": "2\n"}}, {"say": "two"}]}}},
        "check": {"script": [{"shell": "ls > seen.txt"}, {"say": "checked"}]},
    }, [{"from": "impl", "to": "check"}])


async def test_a_choice_is_listed_refused_when_it_does_not_fit_and_resolved(
        api: Api, tmp_path: Path) -> None:
    run_id = (await api.start(two_ways()))["id"]
    await api.until(run_id, lambda s: any(p.get("kind") == "choice"
                                          for p in s["pendingApprovals"].values()))
    [pending] = (await api.json("GET", "/api/approvals", 200))["approvals"]
    assert pending["kind"] == "choice" and pending["runId"] == run_id
    attempts = pending["choice"]["attempts"]
    assert [(a["index"], a["output"].strip()) for a in attempts] == [(1, "one"), (2, "two")]
    assert "two.txt" in attempts[1]["diffstat"]
    url = f"/api/approvals/{pending['approvalId']}/resolve"
    refused = await api.json("POST", url, 422, {"status": "approved", "choice": 3})
    assert refused["error"]["field"] == "choice", refused
    await api.json("POST", url, 422, {"status": "approved", "choice": 0})
    assert (await api.run_state(run_id))["pendingApprovals"]  # still waiting
    done = await api.json("POST", url, 200, {"status": "approved", "choice": 2})
    assert done["resolution"]["choice"] == 2
    assert (await api.finished(run_id))["status"] == "completed"
    [seen] = [p for p in api.data.glob(f"runs/{run_id}/**/seen.txt")]
    assert seen.read_text().split().count("two.txt") == 1
    assert "one.txt" not in seen.read_text().split()
