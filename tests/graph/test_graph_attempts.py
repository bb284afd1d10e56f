"""``attempts`` and ``judge`` of a node: their shape, their checks, their round trip."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from desktop.cli.schema import all_sources
from desktop.contract.schema import build_schemas
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import dumps_workflow, parse_workflow
from desktop.graph.validate import validate

BODY = """version: 1
name: t
nodes:
  - id: a
    entry: true
  - id: b
nodeConfigs:
  a:
{a}  b:
    instructions: b
edges:
  - from: a
    to: b
"""


def load(a: str):
    return parse_workflow(BODY.format(a=a), "t.flow.yaml")


def problems(a: str) -> list:
    doc, smap = load(a)
    return validate(doc, "t.flow.yaml", smap)


@given(st.integers(min_value=-3, max_value=12))
def test_a_count_of_attempts_runs_from_two_to_eight(count: int) -> None:
    if 2 <= count <= 8:
        doc, _ = load(f"    attempts: {count}\n")
        again, _ = parse_workflow(dumps_workflow(doc), "again.flow.yaml")
        assert again.config("a").attempts == count
        return
    with pytest.raises(WorkflowLoadError) as err:
        load(f"    attempts: {count}\n")
    shown = str(err.value)
    assert "t.flow.yaml:9: nodeConfigs.a.attempts" in shown
    assert "a number from 2 to 8" in shown


def test_overrides_name_a_provider_or_a_model_and_round_trip() -> None:
    doc, _ = load("    attempts:\n      - model: big\n      - provider: scripted\n")
    again, _ = parse_workflow(dumps_workflow(doc), "again.flow.yaml")
    assert [o.to_json_dict() for o in again.config("a").attempts] == [
        {"model": "big"}, {"provider": "scripted"}]


@pytest.mark.parametrize(("attempts", "said"), [
    ("      - modle: big\n      - {}\n", "attempt 1: modle"),
    ("      - provider: nope\n      - {}\n", "attempt 1: provider"),
    ("      - model: big\n", "a list of 2 to 8"),
])
def test_a_bad_override_is_named_with_the_attempt_and_the_fix(attempts: str, said: str) -> None:
    with pytest.raises(WorkflowLoadError) as err:
        load("    attempts:\n" + attempts)
    shown = str(err.value)
    assert "nodeConfigs.a.attempts" in shown and said in shown


@pytest.mark.parametrize(("a", "where", "said"), [
    ("    attempts: 2\n    judge: nobody\n", "nodeConfigs.a.judge", "is not a node"),
    ("    attempts: 2\n    judge: a\n", "nodeConfigs.a.judge", "its own attempts"),
    ("    attempts: 2\n    workspace: .\n    isolation: shared\n", "nodeConfigs.a.isolation",
     "worktrees of their own"),
])
def test_a_judge_or_isolation_that_cannot_work_is_an_error(a: str, where: str,
                                                             said: str) -> None:
    found = [p for p in problems(a) if p.is_error]
    assert [p.location.split(": ", 1)[-1] for p in found] == [where], found
    assert said in found[0].message and found[0].hint


def test_a_user_judge_is_the_default_and_needs_no_check() -> None:
    assert not [p for p in problems("    attempts: 3\n") if p.is_error]
    doc, _ = load("    attempts: 3\n")
    assert doc.config("a").judge == "user"


def test_a_judge_node_without_edges_is_not_called_unreachable() -> None:
    text = BODY.format(a="    attempts: 2\n    judge: referee\n").replace(
        "  - id: b\n", "  - id: b\n  - id: referee\n  - id: idle\n")
    doc, smap = parse_workflow(text, "t.flow.yaml")
    unreachable = [p.message for p in validate(doc, "t.flow.yaml", smap)
                   if "cannot be reached" in p.message]
    assert unreachable == ["node 'idle' cannot be reached from the entry node 'a'"]


def test_the_workflow_schema_knows_attempts() -> None:
    schema = build_schemas(all_sources())["workflow-document.schema.json"]
    check = Draft202012Validator(json.loads(json.dumps(schema)))
    doc = {"name": "t", "nodes": [{"id": "a"}],
           "nodeConfigs": {"a": {"attempts": [{"model": "x"}, {"provider": "scripted"}],
                                 "judge": "user"}}}
    check.validate(doc)
    check.validate(doc | {"nodeConfigs": {"a": {"attempts": 4}}})
    assert not check.is_valid(doc | {"nodeConfigs": {"a": {"attempts": "many"}}})
