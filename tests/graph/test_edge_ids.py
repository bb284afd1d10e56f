"""Every edge has a stable id, so deleting one edge never changes another's run id."""

from hypothesis import given
from hypothesis import strategies as st

from desktop.graph.document import WorkflowDocument, WorkflowEdge, WorkflowNode, edge_uuid
from desktop.graph.io import dumps_workflow, loads_workflow
from desktop.runtime.run_setup import run_created_event

RUN = "0f0e0d0c-0b0a-4908-8706-050403020100"
NODES = ["planner", "coder", "tester", "reviewer"]

edge_specs = st.lists(
    st.tuples(st.sampled_from(NODES), st.sampled_from(NODES), st.sampled_from(
        ["handoff", "report"]), st.booleans()).filter(lambda t: t[0] != t[1]),
    min_size=1, max_size=8)


def _document(specs: list[tuple[str, str, str, bool]]) -> WorkflowDocument:
    """A document as an old file would give it: some edges with ids, most without."""
    edges = [{"from": a, "to": b, "type": kind, **({"id": f"given-{i}"} if named else {})}
             for i, (a, b, kind, named) in enumerate(specs)]
    text = dumps_workflow(WorkflowDocument(nodes=[WorkflowNode(id=n) for n in NODES]))
    raw = text.replace("edges: []\n", "") + "edges:\n" + "".join(
        f"  - {{from: {e['from']}, to: {e['to']}, type: {e['type']}"
        + (f", id: {e['id']}" if "id" in e else "") + "}\n" for e in edges)
    return loads_workflow(raw)


def _run_ids(doc: WorkflowDocument) -> dict[str, str]:
    return {e.id: edge_uuid(RUN, i, e) for i, e in enumerate(doc.edges)}


@given(edge_specs, st.data())
def test_deleting_any_edge_keeps_every_other_run_id(specs, data) -> None:
    doc = loads_workflow(dumps_workflow(_document(specs)))  # saved once, ids written
    assert all(e.id for e in doc.edges) and len({e.id for e in doc.edges}) == len(doc.edges)
    before = _run_ids(doc)
    assert set(before.values()) == set(run_created_event(
        doc, RUN, mode="AUTO", global_mode="IMPLEMENTATION", workflow_path=None)["edges"])
    gone = data.draw(st.integers(0, len(doc.edges) - 1))
    removed = doc.edges.pop(gone).id
    after = _run_ids(loads_workflow(dumps_workflow(doc)))
    assert after == {k: v for k, v in before.items() if k != removed}


def test_old_files_without_ids_load_and_get_readable_ids() -> None:
    doc = _document([("planner", "coder", "handoff", False), ("coder", "planner", "report",
                                                                False),
                     ("planner", "coder", "handoff", False), ("coder", "tester", "handoff",
                                                              True)])
    assert [e.id for e in doc.edges] == ["planner-to-coder", "coder-reports-to-planner",
                                         "planner-to-coder-2", "given-3"]
    assert "id: planner-to-coder-2" in dumps_workflow(doc)


def test_edges_appended_in_code_get_ids_when_saved() -> None:
    doc = WorkflowDocument(nodes=[WorkflowNode(id=n) for n in NODES])
    doc.edges.append(WorkflowEdge(**{"from": "planner"}, to="coder"))
    assert "id: planner-to-coder" in dumps_workflow(doc) and doc.edges[0].id
