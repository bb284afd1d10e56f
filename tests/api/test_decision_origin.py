"""Where a person made a decision is recorded with it: the app and the terminal say which
they are (``X-Agent-Canvas-Client``), any other client's decision reads as made through
the API, and no client can pass its decision off as the run's policy or the engine's."""

from __future__ import annotations

import orjson
import pytest
from api_helpers import Api, gated_shell

from desktop.api.client import ApiClient
from desktop.contract import client_origin as origin
from desktop.views.deciders import decision_text


def _resolutions(api: Api, run_id: str) -> list[dict]:
    lines = (api.data / "runs" / run_id / "events.jsonl").read_bytes().splitlines()
    return [e["resolution"] for e in map(orjson.loads, lines)
            if e["type"] == "approval.resolved"]


async def _decide(api: Api, headers: dict[str, str]) -> dict:
    run_id = (await api.start(gated_shell()))["id"]
    state = await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
    [approval_id] = state["pendingApprovals"]
    await api.json("POST", f"/api/approvals/{approval_id}/resolve", 200,
                   {"status": "approved"}, headers=headers)
    await api.finished(run_id)
    [resolution] = _resolutions(api, run_id)
    return resolution


@pytest.mark.parametrize(("headers", "by", "words"), [
    ({origin.HEADER: "app"}, "gui", "approved by a person in the app"),
    ({origin.HEADER: " Terminal "}, "cli", "approved by a person in the terminal"),
    ({}, "api", "approved by a person through the API"),
])
async def test_a_decision_records_where_the_person_made_it(
        api: Api, headers: dict[str, str], by: str, words: str) -> None:
    resolution = await _decide(api, headers)
    assert resolution["by"] == by and decision_text(resolution) == words


@pytest.mark.parametrize("claimed", ["policy", "engine", "gui", ""])
async def test_a_client_claiming_anything_else_is_refused_and_the_approval_still_waits(
        api: Api, claimed: str) -> None:
    run_id = (await api.start(gated_shell()))["id"]
    state = await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
    [approval_id] = state["pendingApprovals"]
    url = f"/api/approvals/{approval_id}/resolve"
    refused = (await api.json("POST", url, 422, {"status": "approved"},
                              headers={origin.HEADER: claimed}))["error"]
    assert refused["code"] == "invalid_client"
    assert refused["message"].startswith(f"{origin.HEADER}: unknown client")
    assert "use one of app, terminal, or leave the header out" in refused["message"]
    assert approval_id in (await api.run_state(run_id))["pendingApprovals"]
    await api.json("POST", url, 200, {"status": "denied"})
    await api.finished(run_id)


async def test_the_products_client_says_which_it_is_once_declared(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(origin, "_declared", [])
    client = ApiClient("http://127.0.0.1:9", "t")
    try:
        assert origin.HEADER not in client._http().headers
        await client.close()
        origin.declare(origin.APP)
        assert client._http().headers[origin.HEADER] == "app"
    finally:
        await client.close()
    with pytest.raises(ValueError, match="unknown client 'policy'"):
        origin.declare("policy")
