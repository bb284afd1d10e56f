"""``nodeConfigs.<id>.worktreeSetup`` in a workflow file: read, written back, in the
schema, and a bad value named at its line with the node's key, whatever the key (keys
with dashes were dropped from the path)."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from desktop.cli.schema import all_sources
from desktop.contract.schema import build_schemas
from desktop.graph.document import SLUG_PATTERN
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import document_data, parse_workflow

BODY = """version: 1
name: t
nodes:
  - id: {key}
    entry: true
nodeConfigs:
  {key}:
    worktreeSetup:
      copy: [{copy}]
      run: npm ci
"""


def test_a_setup_round_trips() -> None:
    doc, _ = parse_workflow(BODY.format(key="impl-text", copy=".env, config/local"), "t.yaml")
    setup = doc.config("impl-text").worktree_setup
    assert setup is not None and setup.copy_ == [".env", "config/local"]
    assert setup.run == "npm ci"
    data = document_data(doc)
    assert data["nodeConfigs"]["impl-text"]["worktreeSetup"] == {
        "copy": [".env", "config/local"], "run": "npm ci"}


# a key YAML reads as itself (`on` or `null` unquoted is a flag or nothing)
@given(key=st.from_regex(SLUG_PATTERN, fullmatch=True).filter(
    lambda text: yaml.safe_load(text) == text))
def test_a_bad_copy_is_named_with_its_line_and_the_node_s_key(key: str) -> None:
    with pytest.raises(WorkflowLoadError) as err:
        parse_workflow(BODY.format(key=key, copy="../secrets"), "t.flow.yaml")
    assert f"t.flow.yaml:9: nodeConfigs.{key}.worktreeSetup.copy[0]: '../secrets' leaves " \
           "the workspace" in str(err.value)


def test_the_workflow_schema_knows_worktree_setup() -> None:
    schema = build_schemas(all_sources())["workflow-document.schema.json"]
    check = Draft202012Validator(json.loads(json.dumps(schema)))
    doc = {"name": "t", "nodes": [{"id": "a"}],
           "nodeConfigs": {"a": {"worktreeSetup": {"copy": [".env"], "run": "make deps"}}}}
    check.validate(doc)
    assert not check.is_valid({**doc, "nodeConfigs": {"a": {"worktreeSetup": {"cp": []}}}})


WORKFLOW_SETUP = """version: 1
name: t
workspace: ../project
worktreeSetup:
  copy: [.env]
  run: npm ci
nodes:
  - {id: a, entry: true}
  - {id: b}
nodeConfigs:
  b:
    worktreeSetup:
      run: make deps
"""


def test_a_workflow_s_setup_is_each_node_s_without_one_and_round_trips() -> None:
    doc, _ = parse_workflow(WORKFLOW_SETUP, "t.flow.yaml")
    assert doc.setup_of("a") == doc.worktree_setup
    assert doc.worktree_setup is not None and doc.worktree_setup.copy_ == [".env"]
    assert doc.setup_of("b") is not None and doc.setup_of("b").run == "make deps"
    data = document_data(doc)
    assert data["worktreeSetup"] == {"copy": [".env"], "run": "npm ci"}
    assert parse_workflow(yaml.safe_dump(data), "again.yaml")[0] == doc


def test_a_bad_workflow_setup_is_named_with_its_line() -> None:
    with pytest.raises(WorkflowLoadError) as err:
        parse_workflow(WORKFLOW_SETUP.replace("[.env]", "[../secrets]"), "t.flow.yaml")
    assert "t.flow.yaml:5: worktreeSetup.copy[0]: '../secrets' leaves the workspace" \
        in str(err.value)
