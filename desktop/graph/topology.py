"""The workflow's handoff structure, shared by validation and layout.

Validation needs only reachability, answered from a plain adjacency map so that
``agent-canvas validate`` does not import networkx (most of its start-up); layout runs
real graph algorithms on :func:`flow_graph`, which imports networkx when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.contract.enums import EdgeType
from desktop.graph.document import WorkflowDocument

if TYPE_CHECKING:
    import networkx as nx


def links(doc: WorkflowDocument, edge_type: EdgeType | None = None) -> dict[str, set[str]]:
    """Node id -> the ids it leads to; one link per direction of each edge whose ends exist.

    With ``edge_type`` only edges of that type are included. Bidirectional edges
    contribute both directions. Every node is a key, linked or not.
    """
    out: dict[str, set[str]] = {n.id: set() for n in doc.nodes}
    for edge in doc.edges:
        if edge_type is not None and edge.type != edge_type:
            continue
        if edge.from_ not in out or edge.to not in out:
            continue
        out[edge.from_].add(edge.to)
        if edge.bidirectional:
            out[edge.to].add(edge.from_)
    return out


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every id a path of links leads to from ``start``, ``start`` included."""
    seen = {start}
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def flow_graph(doc: WorkflowDocument, edge_type: EdgeType | None = None) -> nx.DiGraph:
    """The links of :func:`links` as a networkx graph, for layout's graph algorithms.

    Nodes and edges are added in the document's order, which the layouts depend on.
    """
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(n.id for n in doc.nodes)
    for edge in doc.edges:
        if edge_type is not None and edge.type != edge_type:
            continue
        if edge.from_ not in graph or edge.to not in graph:
            continue
        graph.add_edge(edge.from_, edge.to)
        if edge.bidirectional:
            graph.add_edge(edge.to, edge.from_)
    return graph
