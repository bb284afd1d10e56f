"""A merge approval over REST: listed with its branches, files and hunks, refused when the
choice does not fit (the approval still waits), resolved with edited contents; the
OpenAPI document describes both."""

from __future__ import annotations

import subprocess
from pathlib import Path

from api_helpers import Api, workflow


def conflicting(repo: Path) -> dict:
    """lead hands to left and right, which rewrite the same file, and report back."""
    ws = {"workspace": str(repo)}
    return workflow({
        "lead": {**ws, "script": [{"say": "lead"}], "stallThreshold": 10},
        "left": {**ws, "script": [{"edit": {"path": "shared.txt", "content": "left\n"}}]},
        "right": {**ws, "script": [{"edit": {"path": "shared.txt", "content": "right\n"}}]},
    }, [{"from": "lead", "to": "left"}, {"from": "lead", "to": "right"},
        {"from": "left", "to": "lead", "type": "report"},
        {"from": "right", "to": "lead", "type": "report"}])


async def test_a_merge_approval_is_listed_refused_when_it_does_not_fit_and_resolved(
        api: Api, tmp_path: Path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "shared.txt").write_text("as the user left it\n")  # untracked: in the base
    run_id = (await api.start(conflicting(repo)))["id"]
    await api.until(run_id, lambda s: any(p.get("kind") == "merge"
                                          for p in s["pendingApprovals"].values()))
    [pending] = (await api.json("GET", "/api/approvals", 200))["approvals"]
    assert pending["kind"] == "merge" and pending["runId"] == run_id
    merge = pending["merge"]
    assert merge["target"] == f"canvas/{run_id[:8]}/lead"
    assert merge["source"] in (f"canvas/{run_id[:8]}/left", f"canvas/{run_id[:8]}/right")
    [entry] = merge["files"]
    assert entry["path"] == "shared.txt"
    assert {entry["hunks"][0]["ours"], entry["hunks"][0]["theirs"]} == {"left\n", "right\n"}
    url = f"/api/approvals/{pending['approvalId']}/resolve"
    for body, field in (({"status": "approved"}, "merge"),
                        ({"status": "modified", "modifiedArgs": {}}, "status"),
                        ({"status": "approved", "merge": {"files": {"x.txt": "ours"}}},
                         "merge.files"),
                        ({"status": "approved", "merge": {"files": {}}}, "merge.files")):
        refused = await api.json("POST", url, 422, body)
        assert refused["error"]["field"] == field, refused
    await api.json("POST", url, 422, {"status": "approved", "merge": {"files": {
        "shared.txt": "mine"}}})  # not a side: the request model says so
    assert (await api.run_state(run_id))["pendingApprovals"]  # still waiting
    done = await api.json("POST", url, 200, {"status": "approved", "merge": {
        "contents": {"shared.txt": "left and right\n"}}})
    assert done["resolution"]["merge"]["contents"] == {"shared.txt": "left and right\n"}
    assert (await api.finished(run_id))["status"] == "completed"
    shown = subprocess.run(["git", "show", f"canvas/{run_id[:8]}/lead:shared.txt"], cwd=repo,
                           capture_output=True, text=True, check=True).stdout
    assert shown == "left and right\n"
    assert (repo / "shared.txt").read_text() == "as the user left it\n"


async def test_the_openapi_document_describes_merge_approvals(api: Api) -> None:
    doc = await api.json("GET", "/api/openapi.json", 200)
    schemas = doc["components"]["schemas"]
    resolve = schemas["ResolveApproval"]["properties"]["merge"]
    assert "MergeChoiceIn" in str(resolve)
    choice = schemas["MergeChoiceIn"]["properties"]
    assert set(choice) == {"files", "contents", "agent"}
    assert choice["files"]["additionalProperties"]["enum"] == ["ours", "theirs"]
    listed = schemas["ApprovalOut"]["properties"]
    assert listed["kind"]["enum"] == ["tool", "merge", "choice"]
    assert "MergeRequest" in str(listed["merge"])
    hunk = schemas["ConflictHunk"]["properties"]
    assert {"line", "ours", "theirs", "base"} <= set(hunk)
