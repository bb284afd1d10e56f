"""Every number, path and flag from the network is bounded and typed where it enters: what
does not fit gets a 4xx naming the field, never a 500 (the two 500s a probe found, and
their kin)."""

from __future__ import annotations

from api_helpers import Api, workflow
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


async def a_run(api: Api) -> str:
    run_id = (await api.start(workflow({"a": {"script": [{"say": "hi"}]}})))["id"]
    await api.finished(run_id)
    return run_id


async def test_a_workflow_path_too_long_for_the_file_system_is_a_422(api: Api) -> None:
    for raw in (str(api.flows / ("a" * 300)), str(api.flows / ("b" * 300) / "x.yaml")):
        refused = await api.json("POST", "/api/runs", 422, {"workflowPath": raw})
        assert refused["error"]["field"] == "workflowPath"
    await api.healthy()


async def test_query_integers_out_of_range_or_not_integers_are_422s(api: Api) -> None:
    run_id = await a_run(api)
    for query in ("at=99999999999999999999", "at=9007199254740992", "at=0", "at=-1",
                  "at=1e3", "at=%EF%BC%91", "at=", "at=+1", "at=0x10"):
        refused = await api.json("GET", f"/api/runs/{run_id}/fork-points?{query}", 422)
        assert refused["error"]["field"] == "at", query
    for query in ("limit=0", "limit=1001", "before=0", "after=-1", "after=1" + "0" * 30):
        refused = await api.json("GET", f"/api/runs/{run_id}/events?{query}", 422)
        assert refused["error"]["field"] == query.split("=")[0], query
    # the largest safe integer is a seq, not out of range: the finished run has no event
    # there, which is what the refusal says
    past = await api.json("GET", f"/api/runs/{run_id}/fork-points?at=9007199254740991", 409)
    assert past["error"]["field"] == "at"
    assert "seq 9007199254740991 is past the end" in past["error"]["message"]


async def test_numbers_and_flags_in_bodies_must_have_their_json_type(api: Api) -> None:
    run_id = await a_run(api)
    for body, field in (({"at": True}, "at"), ({"at": "1"}, "at"), ({"at": 1.5}, "at"),
                        ({"at": 2**53}, "at"), ({"at": 1, "start": "yes"}, "start"),
                        ({"at": 1, "start": 1}, "start")):
        refused = await api.json("POST", f"/api/runs/{run_id}/fork", 422, body)
        assert refused["error"]["field"] == field, body
    refused = await api.json("POST", f"/api/runs/{run_id}/apply", 422, {"check": 1})
    assert refused["error"]["field"] == "check"
    refused = await api.json("POST", f"/api/runs/{run_id}/edges", 422,
                             {"from": "a", "to": "a", "bidirectional": "true"})
    assert refused["error"]["field"] == "bidirectional"


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.text(max_size=40))
async def test_any_text_as_a_query_integer_is_taken_or_refused_never_a_500(
        api: Api, raw: str) -> None:
    for name in ("limit", "before", "after"):
        answer = await api.client.get(
            f"/api/runs/{'0' * 8}-0000-4000-8000-000000000000/events", params={name: raw})
        # the query is checked before the run is looked up: 422, or 404 once it fits
        assert answer.status in (404, 422), (name, raw, answer.status)


async def test_a_method_a_route_does_not_take_gets_405_naming_those_it_does(api: Api) -> None:
    response = await api.client.request("TRACE", "/api/runs")
    assert response.status == 405
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}
    run_id = await a_run(api)
    refused = await api.json("DELETE", f"/api/runs/{run_id}?force=banana", 422)
    assert refused["error"]["field"] == "force"
    assert (api.data / "runs" / run_id).is_dir()  # not taken as false and deleted


async def test_the_openapi_document_states_what_the_service_enforces(api: Api) -> None:
    doc = await api.json("GET", "/api/openapi.json", 200)
    events = doc["paths"]["/api/runs/{runId}/events"]["get"]
    bounds = {p["name"]: p["schema"] for p in events["parameters"] if p["in"] == "query"}
    assert bounds["before"]["minimum"] == 1 and bounds["after"]["minimum"] == 0
    assert bounds["limit"] == {"type": "integer", "minimum": 1, "maximum": 1000}
    schemas = doc["components"]["schemas"]
    assert {"required": ["status"], "properties": {"status": {"not": {"type": "null"}}}} \
        in schemas["PatchRun"]["anyOf"]
    assert schemas["ResolveApproval"]["then"]["required"] == ["modifiedArgs"]
    assert schemas["ForkRun"]["properties"]["at"]["minimum"] == 1
    stream = doc["paths"]["/api/runs/{runId}/stream"]["get"]["responses"]
    assert {"400", "422"} <= set(stream)
