"""The one gatekeeper of graph changes refuses exactly what it must, each with its own
typed error, whatever the graph."""

from __future__ import annotations

from contextlib import nullcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.graph import gatekeeper as g

IDS = ["a", "b", "c", "d"]
KINDS = ["handoff", "report"]

_edges = st.frozensets(st.tuples(st.sampled_from(IDS), st.sampled_from(IDS),
                                 st.sampled_from(KINDS)), max_size=8)


@given(nodes=st.frozensets(st.sampled_from(IDS), max_size=4), edges=_edges,
       source=st.sampled_from([*IDS, "ghost"]), target=st.sampled_from([*IDS, "ghost"]),
       kind=st.sampled_from([*KINDS, "teleport"]))
def test_an_edge_is_refused_for_the_first_rule_it_breaks(nodes, edges, source, target, kind):
    graph = g.Graph.of(((n, n) for n in nodes), edges)
    if source not in nodes or target not in nodes:
        expected: type[g.GraphChangeError] | None = g.UnknownNode
    elif kind not in KINDS:
        expected = g.BadEdgeType
    elif source == target:
        expected = g.SelfEdge
    elif (source, target, kind) in edges:
        expected = g.DuplicateEdge
    else:
        expected = None
    if expected is None:
        g.check_edge(graph, source, target, kind)
        return
    with pytest.raises(expected) as caught:
        g.check_edge(graph, source, target, kind)
    assert caught.value.field in ("from", "to", "type")
    assert caught.value.taken is (expected is g.DuplicateEdge)


@given(keys=st.frozensets(st.sampled_from(IDS), max_size=4),
       key=st.sampled_from([*IDS, "new", "9bad", "", None]),
       provider=st.sampled_from([None, "scripted", "claude", "nonsense"]))
def test_a_node_is_refused_for_a_bad_key_a_taken_one_or_an_unknown_provider(keys, key,
                                                                           provider):
    graph = g.Graph.of(((f"id-{k}", k) for k in keys), ())
    node_id = f"id-{key}"
    with pytest.raises(g.GraphChangeError) if (
            key in (None, "", "9bad") or key in keys or provider == "nonsense") else nullcontext():
        g.check_node(graph, key, node_id, provider)
    if key in keys:
        with pytest.raises(g.KeyTaken):
            g.check_node(graph, key, "another-id")

