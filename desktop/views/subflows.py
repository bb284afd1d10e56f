"""Subflow nodes seen from a run's state (wire form): what is inside one, its status,
the way in.

A subflow node's status is derived from the nodes inside it (at any depth), so a
card shows "running" while any of them works, whatever step event came last.
"""

from __future__ import annotations

from typing import Any

from desktop.contract.state import RunState

_BY_URGENCY = ("failed", "blocked", "running")


def _nodes(state: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    return (state or {}).get("nodes") or {}


def inner_nodes(state: dict[str, Any] | None, node_id: str | None) -> list[str]:
    """The nodes directly inside subflow node ``node_id`` (None: the run's own graph)."""
    return [nid for nid, node in _nodes(state).items() if node.get("parent") == node_id]


def all_inside(state: dict[str, Any] | None, node_id: str) -> list[str]:
    """Every node inside ``node_id``, nested subflows' nodes included."""
    out: list[str] = []
    for inner in inner_nodes(state, node_id):
        out.append(inner)
        out += all_inside(state, inner)
    return out


def subflow_status(state: dict[str, Any] | None, node_id: str) -> str:
    """The status to show for subflow node ``node_id``: the most urgent status inside it
    (failed, blocked, running; running too while its step lasts), else its own."""
    nodes = _nodes(state)
    found = {str(nodes[nid].get("status", "idle")) for nid in all_inside(state, node_id)}
    if node_id in ((state or {}).get("runningTurns") or {}):
        found.add("running")
    for status in _BY_URGENCY:
        if status in found:
            return status
    return str(nodes.get(node_id, {}).get("status", "idle"))


def scope_path(state: dict[str, Any] | None, node_id: str | None) -> list[str]:
    """The subflow nodes from the run's top down to ``node_id`` itself, for a breadcrumb
    (``[outer, review]`` for the graph inside ``outer/review``; [] for the top)."""
    nodes = _nodes(state)
    path: list[str] = []
    while node_id is not None and node_id in nodes and node_id not in path:
        path.append(node_id)
        node_id = nodes[node_id].get("parent")
    return path[::-1]


def local_key(state: dict[str, Any] | None, node_id: str) -> str:
    """The node's key as its own workflow file gives it (``tester``, not ``review/tester``)."""
    node = _nodes(state).get(node_id) or {}
    key = str(node.get("key") or node_id)
    parent = _nodes(state).get(node.get("parent") or "")
    prefix = f"{parent.get('key')}/" if parent else ""
    return key.removeprefix(prefix)


def agent_turns(state: RunState) -> list[str]:
    """Nodes with an agent's turn running. A subflow node's step is none: it lasts while
    the nodes inside it work, and waits like them for a person's step or approval."""
    return [nid for nid in state.running_turns
            if nid not in state.nodes or state.nodes[nid].subflow is None]
