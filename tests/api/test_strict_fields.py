"""Numbers and flags in request bodies are JSON's own: ``true`` is not a number, ``"1"``
not an integer, ``5.5`` or ``5.0`` not an integer field's value, ``"yes"`` not a flag.
Each is a 422 naming the field, wherever the field is (a budget, an approval's choice, a
node's config added or patched, an inline workflow), and nothing changes; the value the
field's type takes still goes through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from api_helpers import Api, slow, workflow
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from desktop.api.body_json import workflow_document
from desktop.graph.io import document_data, load_workflow
from desktop.runtime.control import _check_config as check_config

NOT_INTEGERS = st.one_of(
    st.booleans(), st.integers(1, 10**6).map(str),
    st.integers(1, 10**6).map(float),  # 5.0: a float, where the field holds an int
    st.floats(0.1, 1e6).filter(lambda f: not f.is_integer()),
    st.just("1"), st.just([1]), st.just({"n": 1}))
NOT_NUMBERS = st.one_of(st.booleans(), st.floats(0.5, 1e6).map(str), st.just("1"),
                        st.just([1.5]))
NOT_FLAGS = st.one_of(st.sampled_from(["yes", "true", "1", "on", 1, 0, 1.0, [True]]))

# (JSON type, field path in the request) -> where each lands
INTEGER_FIELDS = ("maxTokens", "choice", "config.maxRestarts", "config.stallThreshold",
                  "config.limits.maxTurns", "config.limits.maxOutputBytes",
                  "config.limits.retries", "new.maxRestarts", "new.stallThreshold",
                  "new.limits.maxTurns", "workflow.limits.maxTurns",
                  "workflow.stallThreshold", "workflow.budget.maxTokens")
NUMBER_FIELDS = ("maxWallSec", "maxCostUsd", "config.limits.timeoutSec",
                 "config.limits.retryBackoffSec", "new.limits.timeoutSec",
                 "workflow.limits.timeoutSec", "workflow.budget.maxWallSec")
FLAG_FIELDS = ("config.untilDone", "new.untilDone", "workflow.untilDone")

async def live_run(api: Api) -> str:
    """The service's one slow run, started at its first example (to steer)."""
    runs = (await api.json("GET", "/api/runs", 200))["runs"]
    if runs:
        return runs[-1]["id"]
    run_id = (await api.start(slow(120)))["id"]
    await api.until(run_id, lambda s: s["runningTurns"])
    return run_id


def nested(path: list[str], value: Any) -> dict[str, Any]:
    """``{"a": {"b": value}}`` for ``["a", "b"]``."""
    out: Any = value
    for part in reversed(path):
        out = {part: out}
    return out


def request(field: str, value: Any, run_id: str) -> tuple[str, str, dict[str, Any], str]:
    """Method, path, body carrying ``value`` at ``field``, and the field the 422 names."""
    head, *rest = field.split(".")
    if head == "maxTokens" or head in ("maxWallSec", "maxCostUsd"):
        return "PATCH", f"/api/runs/{run_id}/budget", {"nodeId": "a", head: value}, head
    if head == "choice":  # the body is checked before the approval is looked for
        return ("POST", "/api/approvals/no-such-approval/resolve",
                {"status": "approved", "choice": value}, "choice")
    if head == "config":
        return ("PATCH", f"/api/runs/{run_id}/nodes/a", {"config": nested(rest, value)},
                field)
    if head == "new":
        return ("POST", f"/api/runs/{run_id}/nodes",
                {"key": "helper", "config": nested(rest, value)}, "config." + ".".join(rest))
    doc = workflow({"a": {"script": [{"say": "hi"}], **nested(rest, value)}})
    return "POST", "/api/runs", {"workflow": doc}, "workflow.nodeConfigs.a." + ".".join(rest)


async def refused(api: Api, field: str, value: Any) -> None:
    run_id = await live_run(api)
    before = await api.run_state(run_id)
    runs = len((await api.json("GET", "/api/runs", 200))["runs"])
    method, path, body, named = request(field, value, run_id)
    answer = await api.json(method, path, 422, body)
    assert answer["error"]["field"] == named, (field, value, answer)
    after = await api.run_state(run_id)
    assert after["nodeConfigs"] == before["nodeConfigs"], "nothing changed"
    assert after["nodes"].keys() == before["nodes"].keys()
    assert after.get("budget") == before.get("budget")
    assert len((await api.json("GET", "/api/runs", 200))["runs"]) == runs, "no run started"


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(field=st.sampled_from(INTEGER_FIELDS), value=NOT_INTEGERS)
@example(field="maxTokens", value=True)
@example(field="maxTokens", value="5")
@example(field="maxTokens", value=5.0)
@example(field="choice", value=True)
@example(field="choice", value="2")
@example(field="config.maxRestarts", value=True)
@example(field="config.stallThreshold", value="3")
@example(field="workflow.limits.retries", value=10**26)  # beyond 64 bits: read as a float
async def test_anything_but_a_json_integer_in_an_integer_field_is_a_422_naming_it(
        api: Api, field: str, value: Any) -> None:
    await refused(api, field, value)


@SETTINGS
@given(field=st.sampled_from(NUMBER_FIELDS), value=NOT_NUMBERS)
@example(field="maxWallSec", value=True)
@example(field="new.limits.timeoutSec", value=True)
@example(field="workflow.limits.timeoutSec", value=True)
async def test_anything_but_a_json_number_in_a_number_field_is_a_422_naming_it(
        api: Api, field: str, value: Any) -> None:
    await refused(api, field, value)


@SETTINGS
@given(field=st.sampled_from(FLAG_FIELDS), value=NOT_FLAGS)
@example(field="new.untilDone", value="yes")
async def test_anything_but_true_or_false_in_a_flag_is_a_422_naming_it(
        api: Api, field: str, value: Any) -> None:
    await refused(api, field, value)


async def test_the_values_the_fields_take_still_go_through(api: Api) -> None:
    run_id = await live_run(api)
    budget = f"/api/runs/{run_id}/budget"
    await api.json("PATCH", budget, 200, {"nodeId": "a", "maxTokens": 5000,
                                          "maxWallSec": 600, "maxCostUsd": 2.5})
    await api.json("PATCH", f"/api/runs/{run_id}/nodes/a", 200, {"config": {
        "maxRestarts": 2, "stallThreshold": 4, "untilDone": True,
        "limits": {"timeoutSec": 300, "maxTurns": 9}}})
    state = await api.run_state(run_id)
    config = state["nodeConfigs"][next(iter(state["nodeConfigs"]))]
    assert (config["maxRestarts"], config["stallThreshold"], config["untilDone"]) == (2, 4, True)
    assert config["limits"]["timeoutSec"] == 300 and config["limits"]["maxTurns"] == 9
    await api.json("POST", f"/api/runs/{run_id}/nodes", 201, {
        "key": "helper", "config": {"untilDone": False, "limits": {"timeoutSec": 1.5}}})
    doc = workflow({"a": {"script": [{"say": "hi"}],
                          "limits": {"timeoutSec": 30, "maxTurns": 3}}})
    started = await api.json("POST", "/api/runs", 201, {"workflow": doc})
    [config] = started["nodeConfigs"].values()
    assert config["limits"] == {**config["limits"], "timeoutSec": 30, "maxTurns": 3}
    await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    await api.finished(run_id)


async def test_an_integer_beyond_64_bits_anywhere_in_a_workflow_is_no_500(api: Api) -> None:
    doc = workflow({"a": {"script": [{"say": "hi"}], "limits": {"timeoutSec": 30}}})
    doc["nodeConfigs"]["a"]["executor"] = {"kind": "ray", "runtimeEnv": {"n": 10**26}}
    answer = await api.client.post("/api/runs", json={"workflow": doc})
    assert answer.status in (201, 422), await answer.text()


EXAMPLES = sorted((Path(__file__).parents[2] / "resources").rglob("*.flow.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_as_the_app_sends_it_passes_the_strict_checks(path: Path) -> None:
    """What the app sends (a document read from YAML, as JSON) is what the strict checks
    take: a run of it, its warm-up, a change of each node's config to what it is."""
    doc = load_workflow(path)
    sent = workflow_document(document_data(doc))
    assert document_data(sent) == document_data(doc)
    for node in doc.nodes:
        config = doc.config(node.id)
        check_config(config, config.to_json_dict())
