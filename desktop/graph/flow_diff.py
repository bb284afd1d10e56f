"""What changed between two workflow documents, leaving layout out.

Nodes are matched by id (a node's id is its key, the slug runs know it by), edges by
id and then, for an edge whose id changed, by its ends and type. A node's parameters
are its own fields and its ``nodeConfigs`` entry (under ``config.``); the workflow's
settings are its top-level fields. Positions, sticky notes and groups are only
drawing, so they are never a difference. A missing node config or ``extra`` key reads
like its default: a file that spells a default out says the same as one that omits it.
What differs inside the workflows subflow nodes run is in ``subflows``
(:mod:`desktop.graph.subflow_diff` fills it in from the files).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from desktop.graph.document import WorkflowDocument, WorkflowEdge, WorkflowNode

_LAYOUT = {"position"}
_NOT_SETTINGS = {"nodes", "node_configs", "edges", "notes", "groups"}


@dataclass(frozen=True)
class Change:
    """One parameter that differs: its dotted ``path`` (``config.model``), before, after."""

    path: str
    old: Any
    new: Any


@dataclass(frozen=True)
class NodeDiff:
    """A node added, removed or changed; ``changes`` lists what differs in a changed one."""

    id: str
    label: str
    changes: tuple[Change, ...] = ()


@dataclass(frozen=True)
class EdgeDiff:
    """An edge added, removed or changed, named by id, ends and type."""

    id: str
    source: str
    target: str
    type: str
    label: str | None
    changes: tuple[Change, ...] = ()


@dataclass(frozen=True)
class SubflowDiff:
    """What differs in the workflow subflow node ``id`` runs on each side (``old_file``,
    ``new_file``: where each was read)."""

    id: str
    label: str
    flow: str
    old_file: str
    new_file: str
    diff: FlowDiff


@dataclass(frozen=True)
class FlowDiff:
    """The difference from an old workflow to a new one, in document order."""

    added_nodes: tuple[NodeDiff, ...] = ()
    removed_nodes: tuple[NodeDiff, ...] = ()
    changed_nodes: tuple[NodeDiff, ...] = ()
    added_edges: tuple[EdgeDiff, ...] = ()
    removed_edges: tuple[EdgeDiff, ...] = ()
    changed_edges: tuple[EdgeDiff, ...] = ()
    settings: tuple[Change, ...] = ()
    subflows: tuple[SubflowDiff, ...] = ()
    """Subflow nodes on both sides whose workflows differ (only those)."""

    @property
    def same(self) -> bool:
        """Whether the two workflows describe the same graph and settings, subflows too."""
        return not any((self.added_nodes, self.removed_nodes, self.changed_nodes,
                        self.added_edges, self.removed_edges, self.changed_edges,
                        self.settings, self.subflows))

    def node_changes(self, node_id: str) -> tuple[Change, ...]:
        """What changed in node ``node_id`` (nothing when it did not change)."""
        return next((n.changes for n in self.changed_nodes if n.id == node_id), ())

    def edge_changes(self, edge_id: str) -> tuple[Change, ...]:
        """What changed in edge ``edge_id`` (nothing when it did not change)."""
        return next((e.changes for e in self.changed_edges if e.id == edge_id), ())

    def to_json(self) -> dict[str, Any]:
        """Plain data for ``--json``: ``same``, then nodes, edges and workflow settings."""
        def edge(e: EdgeDiff) -> dict[str, Any]:
            return {"id": e.id, "from": e.source, "to": e.target, "type": e.type,
                    "label": e.label, "changes": [asdict(c) for c in e.changes]}

        return {
            "same": self.same,
            "nodes": {"added": [asdict(n) for n in self.added_nodes],
                      "removed": [asdict(n) for n in self.removed_nodes],
                      "changed": [asdict(n) for n in self.changed_nodes]},
            "edges": {"added": [edge(e) for e in self.added_edges],
                      "removed": [edge(e) for e in self.removed_edges],
                      "changed": [edge(e) for e in self.changed_edges]},
            "workflow": [asdict(c) for c in self.settings],
            "subflows": [{"node": f.id, "label": f.label, "flow": f.flow,
                          "old": f.old_file, "new": f.new_file, "diff": f.diff.to_json()}
                         for f in self.subflows],
        }


def diff_flows(old: WorkflowDocument, new: WorkflowDocument) -> FlowDiff:
    """What ``new`` adds, removes and changes relative to ``old``; layout is left out."""
    old_nodes = {n.id: n for n in old.nodes}
    new_nodes = {n.id: n for n in new.nodes}
    changed = []
    for node in new.nodes:
        before = old_nodes.get(node.id)
        if before is not None:
            found = tuple(compare(_node_data(old, before), _node_data(new, node)))
            if found:
                changed.append(_node(node, found))
    added_edges, removed_edges, changed_edges = _edges(old.edges, new.edges)
    return FlowDiff(
        added_nodes=tuple(_node(n) for n in new.nodes if n.id not in old_nodes),
        removed_nodes=tuple(_node(n) for n in old.nodes if n.id not in new_nodes),
        changed_nodes=tuple(changed),
        added_edges=added_edges, removed_edges=removed_edges, changed_edges=changed_edges,
        settings=tuple(compare(_settings(old), _settings(new))),
    )


def compare(old: Any, new: Any, path: str = "") -> Iterator[Change]:
    """Every leaf where two JSON-like trees differ; mappings are walked key by key
    (old keys first, in order), anything else is compared whole."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            yield from compare(old.get(key), new.get(key), f"{path}.{key}" if path else key)
    elif old != new:
        yield Change(path, old, new)


def edge_key(index: int, edge: WorkflowEdge) -> str:
    """The edge's id (a positional name for one made in code without an id)."""
    return edge.id or f"{index}:{edge.from_}->{edge.to}"


def _node(node: WorkflowNode, changes: tuple[Change, ...] = ()) -> NodeDiff:
    return NodeDiff(node.id, node.label, changes)


def _node_data(doc: WorkflowDocument, node: WorkflowNode) -> dict[str, Any]:
    data = node.model_dump(mode="json", by_alias=True, exclude={"id", *_LAYOUT})
    data["config"] = doc.config(node.id).model_dump(mode="json", by_alias=True)
    return data


def _settings(doc: WorkflowDocument) -> dict[str, Any]:
    return doc.model_dump(mode="json", by_alias=True, exclude=_NOT_SETTINGS)


def _edge_data(edge: WorkflowEdge) -> dict[str, Any]:
    return edge.model_dump(mode="json", by_alias=True, exclude={"id"})


def _edge(key: str, edge: WorkflowEdge, changes: tuple[Change, ...] = ()) -> EdgeDiff:
    return EdgeDiff(key, edge.from_, edge.to, str(edge.type), edge.label, changes)


def _edges(old: list[WorkflowEdge], new: list[WorkflowEdge]
           ) -> tuple[tuple[EdgeDiff, ...], tuple[EdgeDiff, ...], tuple[EdgeDiff, ...]]:
    """(added, removed, changed): by id, then an edge whose id alone changed is paired
    with the one of the same ends and type."""
    before = {edge_key(i, e): e for i, e in enumerate(old)}
    after = {edge_key(i, e): e for i, e in enumerate(new)}
    gone = {k: e for k, e in before.items() if k not in after}
    added, changed = [], []
    for key, edge in after.items():
        match, match_key = before.get(key), key
        if match is None:
            match_key = next((k for k, e in gone.items()
                              if (e.from_, e.to, e.type) == (edge.from_, edge.to, edge.type)),
                             None)
            if match_key is None:
                added.append(_edge(key, edge))
                continue
            match = gone.pop(match_key)
        found = list(compare(_edge_data(match), _edge_data(edge)))
        if match_key != key:
            found.insert(0, Change("id", match_key, key))
        if found:
            changed.append(_edge(key, edge, tuple(found)))
    removed = tuple(_edge(k, e) for k, e in gone.items())
    return tuple(added), removed, tuple(changed)
