"""The workflow as a networkx graph, shared by validation and layout."""

import networkx as nx

from desktop.contract.enums import EdgeType
from desktop.graph.document import WorkflowDocument


def flow_graph(doc: WorkflowDocument, edge_type: EdgeType | None = None) -> nx.DiGraph:
    """Nodes by id; one directed edge per direction of each edge whose ends exist.

    With ``edge_type`` only edges of that type are included. Bidirectional edges
    contribute both directions.
    """
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
