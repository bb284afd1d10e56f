"""A decision that carries what its status does not use is a 422 naming the field, and
the approval still waits: an approved (or denied) tool call with modifiedArgs was
recorded with those arguments while the call ran as asked, and a denied merge with a
merge choice was taken as a plain denial."""

from __future__ import annotations

import subprocess
from pathlib import Path

from api_helpers import Api, gated_shell
from test_merge_api import conflicting


async def pending_of(api: Api, run_id: str, kind: str) -> str:
    state = await api.until(run_id, lambda s: any(p.get("kind", "tool") == kind
                                                  for p in s["pendingApprovals"].values()))
    return next(iter(state["pendingApprovals"]))


async def refused_then_decided(api: Api, run_id: str, approval_id: str,
                               bad: list[tuple[dict, str]], good: dict) -> None:
    url = f"/api/approvals/{approval_id}/resolve"
    for body, field in bad:
        refused = await api.json("POST", url, 422, body)
        assert refused["error"]["field"] == field, (body, refused)
        assert approval_id in (await api.run_state(run_id))["pendingApprovals"]
    done = await api.json("POST", url, 200, good)
    assert done["resolution"]["status"] == good["status"]
    assert "modifiedArgs" not in done["resolution"]


async def test_modified_args_go_with_status_modified_only(api: Api) -> None:
    run_id = (await api.start(gated_shell("echo asked > out.txt")))["id"]
    approval_id = await pending_of(api, run_id, "tool")
    changed = {"command": "echo other > out.txt"}
    await refused_then_decided(api, run_id, approval_id, [
        ({"status": "approved", "modifiedArgs": changed}, "modifiedArgs"),
        ({"status": "denied", "modifiedArgs": changed}, "modifiedArgs"),
        ({"status": "approved", "modifiedArgs": {}}, "modifiedArgs")],
        {"status": "approved"})
    await api.finished(run_id)


async def test_a_denied_merge_takes_no_merge_choice(api: Api, tmp_path: Path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    run_id = (await api.start(conflicting(repo)))["id"]
    approval_id = await pending_of(api, run_id, "merge")
    await refused_then_decided(api, run_id, approval_id, [
        ({"status": "denied", "merge": {"files": {"shared.txt": "ours"}}}, "merge"),
        ({"status": "denied", "merge": {"agent": True}}, "merge")],
        {"status": "denied", "reason": "not now"})
    await api.json("DELETE", f"/api/runs/{run_id}?force=true", 200)
