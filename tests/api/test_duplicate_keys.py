"""A request body with a key given twice in one object is refused (400 naming the key and
where it is) and does nothing: a JSON parser would keep the last value, so
``{"status": "running", "status": "stopped"}`` would stop a run."""

from __future__ import annotations

import json

from api_helpers import AUTH, Api, slow, workflow
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from desktop.api.api_error import ApiError
from desktop.api.body_json import decode_body

KEYS = st.text(min_size=1, max_size=8)
VALUES = st.recursive(st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=5),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(KEYS, inner, max_size=3), max_leaves=10)


def with_key_twice(doc: dict, path: list[str], key: str, first: object,
                   last: object) -> bytes:
    """``doc`` as JSON text with ``key`` written twice in the object at ``path``."""
    marker = "\x00twice\x00"
    target = doc
    for part in path:
        target = target[part]
    target[marker] = None
    text = json.dumps(doc)
    pair = f"{json.dumps(key)}: {json.dumps(first)}, {json.dumps(key)}: {json.dumps(last)}"
    return text.replace(f"{json.dumps(marker)}: null", pair).encode()


@settings(max_examples=200, deadline=None)
@given(doc=st.dictionaries(KEYS, VALUES, max_size=4), inner=st.lists(KEYS, max_size=3),
       key=KEYS, first=VALUES, last=VALUES)
@example(doc={}, inner=[], key="status", first="running", last="stopped")
def test_a_key_twice_anywhere_is_refused_naming_it_and_where(
        doc: dict, inner: list[str], key: str, first: object, last: object) -> None:
    target = doc
    for part in inner:  # the object the key goes twice into, some levels down
        target[part] = target = {} if not isinstance(target.get(part), dict) else target[part]
    raw = with_key_twice(doc, inner, key, first, last)
    try:
        decode_body(raw)
    except ApiError as exc:
        assert (exc.status, exc.code) == (400, "invalid_json")
        assert exc.field == ".".join([*inner, key]) and repr(key) in exc.message
    else:
        raise AssertionError(f"{raw!r} was taken")


@given(doc=st.dictionaries(KEYS, VALUES, max_size=4))
def test_json_with_every_key_once_is_read_as_it_is(doc: dict) -> None:
    assert decode_body(json.dumps(doc).encode()) == doc


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(["workflowPath", "status", "config"]))
async def test_the_service_refuses_a_body_with_a_key_twice_and_does_nothing(
        api: Api, field: str) -> None:
    runs = (await api.json("GET", "/api/runs", 200))["runs"]
    run_id = runs[-1]["id"] if runs else (await api.start(slow(120)))["id"]
    if not runs:
        await api.until(run_id, lambda s: s["runningTurns"])
    path, body = {
        "workflowPath": ("/api/runs", b'{"workflowPath": "x.flow.yaml", '
                                      b'"workflowPath": "y.flow.yaml"}'),
        "status": (f"/api/runs/{run_id}",
                   b'{"status": "running", "status": "stopped"}'),
        "config": (f"/api/runs/{run_id}/nodes/a",
                   b'{"config": {"maxRestarts": 1, "maxRestarts": 2}}'),
    }[field]
    method = "POST" if path == "/api/runs" else "PATCH"
    answer = await api.client.request(method, path, data=body,
                                      headers={**AUTH, "Content-Type": "application/json"})
    error = (await answer.json())["error"]
    assert answer.status == 400 and error["code"] == "invalid_json", error
    assert error["field"] == ("config.maxRestarts" if field == "config" else field), error
    state = await api.run_state(run_id)
    assert state["status"] == "running"
    assert all(c.get("maxRestarts", 0) == 0 for c in state["nodeConfigs"].values())
    assert len((await api.json("GET", "/api/runs", 200))["runs"]) == 1, "no run started"


def test_a_workflow_sent_inline_with_a_key_twice_is_refused() -> None:
    doc = workflow({"a": {"script": [{"say": "hi"}]}})
    raw = with_key_twice({"workflow": doc}, ["workflow", "nodeConfigs", "a"], "untilDone",
                         False, True)
    try:
        decode_body(raw)
    except ApiError as exc:
        assert exc.field == "workflow.nodeConfigs.a.untilDone"
    else:
        raise AssertionError("taken")
