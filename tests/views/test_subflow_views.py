"""A run's subflow nodes seen from its state: inside, status, breadcrumb, inner graph."""

from __future__ import annotations

from pathlib import Path

from desktop.contract.state import RunState
from desktop.graph.io import load_workflow
from desktop.graph.subflows import resolve_subflows
from desktop.runtime.run_setup import run_created_event
from desktop.store.reducer import fold
from desktop.views.rerun import document_from_created
from desktop.views.subflows import (
    all_inside,
    inner_nodes,
    local_key,
    scope_path,
    subflow_status,
)

RUN = "11111111-2222-3333-4444-555555555555"
EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / \
    "subflow-review.flow.yaml"


def created() -> dict:
    doc = load_workflow(EXAMPLE)
    return {**run_created_event(doc, RUN, mode="AUTO", global_mode="IMPLEMENTATION",
                                workflow_path=str(EXAMPLE),
                                subflows=resolve_subflows(doc, EXAMPLE)),
            "ts": "2026-01-01T00:00:00.000Z", "seq": 1}


def ids(state: RunState) -> dict[str, str]:
    return {n.key or "": nid for nid, n in state.nodes.items()}


def test_the_run_graph_and_the_inner_graph_rebuild_as_their_files_say():
    event = created()
    top = document_from_created(event)
    assert [n.id for n in top.nodes] == ["writer", "review"]
    assert top.node("review").kind == "subflow" and top.node("review").flow == \
        "review.flow.yaml"
    assert len(top.edges) == 2
    review = next(nid for nid, n in event["nodes"].items() if n["key"] == "review")
    inner = document_from_created(event, review)
    assert [n.id for n in inner.nodes] == ["reviewer", "tester"]
    assert inner.entry_node().id == "reviewer"
    assert {(e.from_, e.to) for e in inner.edges} == {("reviewer", "tester"),
                                                       ("tester", "reviewer")}


def test_a_subflow_node_shows_the_most_urgent_status_inside_it():
    model = fold(None, created())
    key = ids(model)
    state = model.to_json_dict()
    review = key["review"]
    assert inner_nodes(state, review) == [key["review/reviewer"], key["review/tester"]]
    assert all_inside(state, review) == inner_nodes(state, review)
    assert subflow_status(state, review) == "idle"
    state["nodes"][key["review/tester"]]["status"] = "running"
    assert subflow_status(state, review) == "running"
    state["nodes"][key["review/reviewer"]]["status"] = "failed"
    assert subflow_status(state, review) == "failed"
    assert scope_path(state, review) == [review] and scope_path(state, None) == []
    assert local_key(state, key["review/tester"]) == "tester"
    assert local_key(state, review) == "review"
