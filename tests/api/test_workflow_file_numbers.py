"""``POST /api/runs`` with a ``workflowPath`` reads the file as ``validate`` does: a
number or flag not as YAML typed it (``timeoutSec: true``) is a 422 naming the file and
the field, and no run starts; the same workflow with a number starts."""

from __future__ import annotations

from typing import Any

import yaml
from api_helpers import Api
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _flow(limits: dict[str, Any]) -> dict[str, Any]:
    return {"version": 1, "name": "n", "task": "t", "nodes": [{"id": "a", "entry": True}],
            "nodeConfigs": {"a": {"script": [{"say": "hi"}, {"done": True}],
                                  "limits": limits}}}


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.one_of(st.booleans(), st.integers(1, 600).map(str)))
async def test_a_workflow_file_with_a_flag_or_text_for_seconds_is_a_422(
        api: Api, value: Any) -> None:
    path = api.flows / "w.flow.yaml"
    path.write_text(yaml.safe_dump(_flow({"timeoutSec": value})), encoding="utf-8")
    answer = await api.json("POST", "/api/runs", 422, {"workflowPath": str(path)})
    assert answer["error"]["code"] == "invalid_workflow"
    assert answer["error"]["field"] == "workflowPath"
    assert f"{path}:" in answer["error"]["message"]
    assert "nodeConfigs.a.limits.timeoutSec: timeoutSec must be a number of seconds" \
        in answer["error"]["message"]
    assert (await api.json("GET", "/api/runs", 200))["runs"] == []


async def test_the_same_file_with_a_number_of_seconds_starts(api: Api) -> None:
    path = api.flows / "w.flow.yaml"
    path.write_text(yaml.safe_dump(_flow({"timeoutSec": 30})), encoding="utf-8")
    run = await api.json("POST", "/api/runs", 201, {"workflowPath": str(path)})
    assert run["nodeConfigs"][next(iter(run["nodeConfigs"]))]["limits"]["timeoutSec"] == 30
