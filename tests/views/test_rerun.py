"""Run again rebuilds the workflow a run started with from its ``run.created``: every
example, and a graph with a budget, an executor, attempts, isolation and a workspace,
starts the very run the original started (layout, notes and run-time additions left out)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.events import RunCreated
from desktop.graph.document import WorkflowDocument
from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.graph.subflows import Subflow, resolve_subflows
from desktop.runtime.run_setup import run_created_event
from desktop.views.rerun import document_of_first

RUN_ID = "0f0e0d0c-0b0a-4000-8000-000000000000"


def _created(doc: WorkflowDocument, path: str | None = None,
             subflows: dict[str, Subflow] | None = None) -> dict:
    return run_created_event(doc, RUN_ID, mode=str(doc.mode).upper(),
                             global_mode=str(doc.global_mode).upper(), workflow_path=path,
                             subflows=subflows)


@pytest.mark.parametrize("example", sorted(p.name for p in examples_dir().glob("*.flow.yaml")))
def test_every_example_runs_again_as_it_started(example: str) -> None:
    doc = load_workflow(examples_dir() / example)
    subflows = resolve_subflows(doc, examples_dir() / example)  # the files, read once
    first = _created(doc, f"/flows/{example}", subflows)
    again, path = document_of_first(first, "test")
    assert path == f"/flows/{example}"
    assert _created(again, path, subflows) == first


def test_budget_executor_attempts_and_isolation_are_kept() -> None:
    doc = WorkflowDocument.model_validate({
        "name": "kept", "task": "t", "isolation": "shared", "workspace": "../project",
        "worktreeSetup": {"copy": [".env"], "run": "npm ci"},
        "executor": {"kind": "ray", "address": "ray://head:10001"},
        "budget": {"maxTokens": 5000, "maxCostUsd": 1.5, "maxWallSec": 600},
        "nodes": [{"id": "a", "entry": True}, {"id": "b"}],
        "nodeConfigs": {"b": {"attempts": 2, "budget": {"maxTokens": 100}}},
        "edges": [{"from": "a", "to": "b"}]})
    first = _created(doc)
    again, _ = document_of_first(first, "test")
    assert _created(again) == first
    assert again.budget == doc.budget and again.executor == doc.executor
    assert again.workspace == "../project" and again.worktree_setup == doc.worktree_setup


def test_a_log_that_does_not_start_with_run_created_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"somewhere: the log does not start with run\.created"):
        document_of_first({"type": "run.started"}, "somewhere")


@given(st.text(max_size=200))
def test_the_workflows_description_is_recorded_and_shown_with_the_runs_graph(
        description: str) -> None:
    doc = WorkflowDocument.model_validate({
        "name": "described", "description": description, "task": "t",
        "nodes": [{"id": "a", "entry": True}]})
    first = _created(doc)
    RunCreated.model_validate({**first, "ts": "2026-01-01T00:00:00.000Z"})  # its contract
    again, _ = document_of_first(first, "test")
    assert again.description == description
    assert ("description" in first) == bool(description)  # absent when there is none


def test_a_run_recorded_without_a_description_still_opens_with_none() -> None:
    doc = load_workflow(examples_dir() / "single-agent.flow.yaml")
    first = _created(doc)
    assert first["description"] == doc.description != ""
    del first["description"]  # as runs made before it was recorded
    again, _ = document_of_first(first, "test")
    assert again.description == "" and [n.id for n in again.nodes] == ["implementer"]
