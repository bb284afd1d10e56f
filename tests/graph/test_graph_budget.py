"""``budget`` of a workflow and of a node: its round trip, its checks, the run it starts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import document_data, dumps_workflow, parse_workflow
from desktop.runtime.run_setup import run_created_event

RUN_ID = "12345678-0000-4000-8000-000000000000"
BODY = """version: 1
name: t
{run}nodes:
  - id: a
    entry: true
nodeConfigs:
  a:
    instructions: a
{a}edges: []
"""

budgets = st.fixed_dictionaries({}, optional={
    "maxTokens": st.integers(1, 10**9),
    "maxCostUsd": st.floats(0.01, 1e4, allow_nan=False).map(lambda f: round(f, 2)),
    "maxWallSec": st.integers(1, 10**6)})


def _flow(mapping: dict | None, indent: str) -> str:
    if mapping is None:
        return ""
    inner = ", ".join(f"{k}: {v}" for k, v in mapping.items())
    return f"{indent}budget: {{{inner}}}\n"


@given(run=st.none() | budgets, node=st.none() | budgets)
def test_run_and_node_budgets_round_trip_and_reach_the_run(run: dict | None,
                                                           node: dict | None) -> None:
    doc, _ = parse_workflow(BODY.format(run=_flow(run, ""), a=_flow(node, "    ")), "t.flow.yaml")
    again, _ = parse_workflow(dumps_workflow(doc), "again.flow.yaml")
    assert (again.budget.to_json_dict() if again.budget else None) == run
    got = again.config("a").budget
    assert (got.to_json_dict() if got else None) == node
    if run is None:
        assert "budget" not in document_data(doc)
    created = run_created_event(doc, RUN_ID, mode="AUTO", global_mode="IMPLEMENTATION",
                                workflow_path=None)
    assert created.get("budget") == run


@pytest.mark.parametrize(("run", "a", "where"), [
    ("budget: {maxTokens: 0}\n", "", "t.flow.yaml:3: budget.maxTokens"),
    ("", "    budget: {maxCost: 2}\n", "nodeConfigs.a.budget.maxCost"),
])
def test_a_bad_budget_is_named_with_the_file_and_field(run: str, a: str, where: str) -> None:
    with pytest.raises(WorkflowLoadError) as err:
        parse_workflow(BODY.format(run=run, a=a), "t.flow.yaml")
    assert where in str(err.value)
