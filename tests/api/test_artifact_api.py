"""A run's artifacts over REST by id: a turn's diff with its text, refused with 404 for an
id the run does not have, a file gone from the folder or one that points out of it, and
cut (``truncated``) past the size limit."""

from __future__ import annotations

import pytest
from api_helpers import Api, workflow

from desktop.api import artifacts


async def a_diff(api: Api) -> tuple[str, dict]:
    run_id = (await api.start(workflow({"writer": {"script": [
        {"edit": {"path": "notes.txt", "content": "line one\nline two\n"}}]}})))["id"]
    state = await api.finished(run_id)
    assert state["status"] == "completed"
    diff = next(a for a in state["artifacts"].values() if a["kind"] == "diff")
    return run_id, diff


async def test_a_turns_diff_comes_with_its_text_by_artifact_id(api: Api) -> None:
    run_id, diff = await a_diff(api)
    got = await api.json("GET", f"/api/runs/{run_id}/artifacts/{diff['id']}", 200)
    on_disk = (api.data / "runs" / run_id / diff["path"]).read_bytes()
    assert got["text"].encode() == on_disk and "+line two" in got["text"]
    assert (got["id"], got["kind"], got["path"], got["size"], got["truncated"]) == \
        (diff["id"], "diff", diff["path"], len(on_disk), False)


async def test_unknown_gone_and_escaping_artifacts_are_404(api: Api) -> None:
    run_id, diff = await a_diff(api)
    base = f"/api/runs/{run_id}/artifacts"
    unknown = await api.json("GET", f"{base}/not-an-artifact", 404)
    assert unknown["error"]["code"] == "artifact_not_found"
    path = api.data / "runs" / run_id / diff["path"]
    secret = api.data / "elsewhere.txt"
    secret.write_text("not the run's\n")
    path.unlink()
    path.symlink_to(secret)  # a link out of the run's folder is not followed
    escaped = await api.json("GET", f"{base}/{diff['id']}", 404)
    assert escaped["error"]["code"] == "artifact_missing" and "not the run" not in str(escaped)
    path.unlink()
    gone = await api.json("GET", f"{base}/{diff['id']}", 404)
    assert gone["error"]["field"] == "artifactId"


@pytest.mark.parametrize("limit", [1, 16])
async def test_a_large_artifact_is_cut_and_says_so(api: Api, monkeypatch, limit: int) -> None:
    run_id, diff = await a_diff(api)
    monkeypatch.setattr(artifacts, "MAX_ARTIFACT_BYTES", limit)
    got = await api.json("GET", f"/api/runs/{run_id}/artifacts/{diff['id']}", 200)
    whole = (api.data / "runs" / run_id / diff["path"]).read_text()
    assert got["truncated"] and got["text"] == whole[:limit] and got["size"] == len(whole)

