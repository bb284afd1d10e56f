"""The OpenAPI document matches the routes; random bodies never get a 500."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest
from api_helpers import Api, slow
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.api.routes import ROUTES


async def test_openapi_31_lists_every_route_with_valid_schemas(api: Api) -> None:
    doc = await api.json("GET", "/api/openapi.json", 200)
    assert doc["openapi"].startswith("3.1")
    for route in ROUTES:
        path = re.sub(r"\{(\w+)\}", lambda m: "{" + re.sub(
            r"_(\w)", lambda x: x.group(1).upper(), m.group(1)) + "}", route.path)
        operation = doc["paths"][path][route.method.lower()]
        assert str(route.status) in operation["responses"]
        assert "401" in operation["responses"]
    assert "get" in doc["paths"]["/api/runs/{runId}/stream"]
    schemas = doc["components"]["schemas"]
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    create = schemas["CreateRun"]
    assert create["additionalProperties"] is False
    assert {"workflowPath", "workflow", "mode", "globalMode"} == set(create["properties"])
    refs = re.findall(r'"\$ref": "#/components/schemas/(\w+)"', str(doc).replace("'", '"'))
    assert refs and all(name in schemas for name in refs)


async def test_openapi_request_schemas_agree_with_the_server(api: Api) -> None:
    """A body the schema accepts is not refused as malformed (and the reverse for extras)."""
    doc = await api.json("GET", "/api/openapi.json", 200)
    schema = {**doc["components"]["schemas"]["PatchRun"],
              "$defs": doc["components"]["schemas"]}
    jsonschema.validate({"status": "paused"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"status": "paused", "extra": 1}, schema)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12)
FIELDS = st.sampled_from(["workflowPath", "workflow", "mode", "globalMode", "status", "nodeId",
                          "message", "text", "key", "config", "from", "to", "type", "label",
                          "modifiedArgs", "reason", "connectFrom", "structured"])
BODIES = st.dictionaries(FIELDS, JSON, max_size=4) | JSON


@pytest.fixture
async def live(api: Api) -> tuple[Api, str]:
    run_id = (await api.start(slow(120)))["id"]
    await api.until(run_id, lambda s: bool(s["runningTurns"]))
    return api, run_id


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=BODIES, endpoint=st.sampled_from([
    ("POST", "/api/runs"), ("PATCH", "/api/runs/{run}"), ("POST", "/api/runs/{run}/chat"),
    ("POST", "/api/runs/{run}/step"), ("POST", "/api/runs/{run}/nodes"),
    ("PATCH", "/api/runs/{run}/nodes/a"), ("POST", "/api/runs/{run}/edges"),
    ("POST", "/api/runs/{run}/inbox/x"), ("POST", "/api/approvals/x/resolve")]))
async def test_random_bodies_never_get_a_500(live: tuple[Api, str], body: Any,
                                              endpoint: tuple[str, str]) -> None:
    api, run_id = live
    method, path = endpoint
    if method == "PATCH" and path == "/api/runs/{run}" and isinstance(body, dict):
        body = {k: v for k, v in body.items() if k != "status"}  # keep the run alive
    response = await api.client.request(method, path.format(run=run_id), json=body)
    text = await response.text()
    assert response.status < 500, text
    if response.status >= 400:
        error = (await response.json())["error"]
        assert error["code"] and error["message"]
    assert "Traceback" not in text
