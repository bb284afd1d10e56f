"""Reachability for validation is answered without networkx; it must agree with networkx,
which layout still uses, on any workflow's links (dangling edges, loops, both ways)."""

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.contract.enums import EdgeType
from desktop.graph.document import WorkflowDocument
from desktop.graph.topology import flow_graph, links, reachable

IDS = [f"n{i}" for i in range(7)]
ENDS = [*IDS, "ghost"]  # an edge may name a node that does not exist


@st.composite
def documents(draw: st.DrawFn) -> WorkflowDocument:
    nodes = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=len(IDS), unique=True))
    edges = draw(st.lists(st.fixed_dictionaries({
        "from": st.sampled_from(ENDS), "to": st.sampled_from(ENDS),
        "type": st.sampled_from([t.value for t in EdgeType]),
        "bidirectional": st.booleans()}), max_size=14))
    return WorkflowDocument.model_validate({"nodes": [{"id": n} for n in nodes],
                                            "edges": edges})


@settings(max_examples=200, deadline=None)
@given(doc=documents(), edge_type=st.sampled_from([None, *EdgeType]))
def test_reachable_agrees_with_networkx(doc: WorkflowDocument,
                                        edge_type: EdgeType | None) -> None:
    graph = flow_graph(doc, edge_type)
    ours = links(doc, edge_type)
    assert set(ours) == set(graph.nodes)
    assert {(a, b) for a, ends in ours.items() for b in ends} == set(graph.edges)
    for start in ours:
        assert reachable(ours, start) == nx.descendants(graph, start) | {start}
