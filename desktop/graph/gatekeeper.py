"""The one gatekeeper of graph changes: whether a node or an edge may join a graph, as
typed errors.

The editor (drawing an edge), the API's live graph edits and an agent's ``spawn_node`` /
``create_edge`` (both through desktop/runtime/management.py) ask it, so a change the
canvas refuses is refused everywhere, for the same reason, in the same words. It sees a
graph as a :class:`Graph`: the node ids and keys and the edges, whatever holds them (a
workflow document, a run's state).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from desktop.contract.enums import EdgeType, Provider
from desktop.graph.document import SLUG_PATTERN

_SLUG = re.compile(SLUG_PATTERN)
_EDGE_TYPES = tuple(t.value for t in EdgeType)


class GraphChangeError(ValueError):
    """A change the graph cannot take; ``field`` names the argument at fault."""

    taken = False
    """True when the graph already holds what the change would add (a conflict with its
    state, not a wrong argument)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class UnknownNode(GraphChangeError):
    """An end of the edge, or the node to connect from, names no node."""


class SelfEdge(GraphChangeError):
    """An edge from a node to itself."""


class BadEdgeType(GraphChangeError):
    """An edge type other than handoff or report."""


class BadKey(GraphChangeError):
    """A new node's key that is not a slug."""


class UnknownProvider(GraphChangeError):
    """A new node's provider that no provider is called."""


class DuplicateEdge(GraphChangeError):
    """An edge of that type already runs between the two nodes."""

    taken = True


class KeyTaken(GraphChangeError):
    """A node with that key (or the id it gives) is already in the graph."""

    taken = True


@dataclass(frozen=True)
class Graph:
    """What a change is checked against: node ids, node keys, and edges as
    (from, to, type)."""

    node_ids: frozenset[str]
    keys: frozenset[str]
    edges: frozenset[tuple[str, str, str]]

    @classmethod
    def of(cls, nodes: Iterable[tuple[str, str | None]],
           edges: Iterable[tuple[str, str, str]]) -> Graph:
        """From (id, key) pairs and (from, to, type) triples."""
        pairs = list(nodes)
        return cls(frozenset(i for i, _ in pairs), frozenset(k for _, k in pairs if k),
                   frozenset((a, b, str(t)) for a, b, t in edges))


def check_edge(graph: Graph, source: str, target: str,
               kind: str = EdgeType.HANDOFF.value) -> None:
    """Raise the reason the edge ``source -> target`` of ``kind`` may not be added."""
    for field, end in (("from", source), ("to", target)):
        if end not in graph.node_ids:
            raise UnknownNode(f"{field} {end!r} names no node", field)
    if kind not in _EDGE_TYPES:
        raise BadEdgeType(f"type must be handoff or report, not {kind!r}", "type")
    if source == target:
        raise SelfEdge("a node cannot hand off to itself", "to")
    if (source, target, kind) in graph.edges:
        raise DuplicateEdge(f"{source} already has a {kind} edge to {target}", "to")


def check_node(graph: Graph, key: object, node_id: str, provider: object = None) -> None:
    """Raise the reason a node with ``key`` (giving ``node_id``) and ``provider`` may not
    be added."""
    if not isinstance(key, str) or not _SLUG.match(key):
        raise BadKey("needs a key: a slug of letters, digits, '_', '.', '-' starting "
                     "with a letter", "key")
    if node_id in graph.node_ids or key in graph.keys:
        raise KeyTaken(f"a node with key {key!r} already exists", "key")
    if provider is not None and provider not in {p.value for p in Provider}:
        raise UnknownProvider(f"unknown provider {provider!r}", "provider")
