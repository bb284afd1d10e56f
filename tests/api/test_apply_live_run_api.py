"""``POST /api/runs/RUN/apply`` of a run its engine is still working on: 409 run_working
saying why and what to do, a check too, and nothing lands; once it is stopped, its
result applies."""

from __future__ import annotations

from pathlib import Path

from api_helpers import Api, workflow
from test_result_api import git, project


def edits_then_works_on(repo: Path) -> dict:
    """A node that commits a file in its worktree, then hands off to one that keeps
    working: the result so far is the first node's branch."""
    ws = {"workspace": str(repo)}
    return workflow({
        "left": {**ws, "script": [{"edit": {"path": "left.txt", "content": "left\n"}}]},
        "slow": {**ws, "script": [{"say": "working"}, {"sleep": 60}, {"say": "done"}]},
    }, [{"from": "left", "to": "slow"}])


async def test_an_apply_while_the_run_works_is_409_run_working_and_nothing_lands(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = (await api.start(edits_then_works_on(repo)))["id"]
    await api.until(run_id, lambda s: s["status"] == "running"
                    and any(n.get("status") == "running" for n in s["nodes"].values()
                            if n.get("key") == "slow" or n.get("label") == "Slow"))
    status = git(repo, "status", "--porcelain")
    base = f"/api/runs/{run_id}/apply"
    for body in ({}, {"check": True}, {"branch": "agent/result"}):
        refused = await api.json("POST", base, 409, body)
        assert refused["error"]["code"] == "run_working", (body, refused)
        assert f"run {run_id[:8]} is still running" in refused["error"]["message"]
        assert "wait for the run to end, or stop it" in refused["error"]["message"]
    assert git(repo, "status", "--porcelain") == status
    assert not (repo / "left.txt").exists()
    stopped = await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    assert stopped["status"] == "stopped"
    taken = await api.json("POST", base, 200, {})
    assert taken["applied"] and taken["files"] == ["left.txt"]
