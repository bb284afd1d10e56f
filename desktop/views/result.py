"""Which node's branch is a run's result: the node that finished a turn last, else the entry.

A run whose nodes work in their own git worktrees ends with its work on several
branches; code travels along the edges (a report merges the sender's branch into the
receiver's), so the node that finished last holds what the run arrived at. When no
node in a worktree finished a turn, the entry node's branch is the result (it holds the
base, and whatever its turns left). A run with no node in a worktree has no result
branch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from desktop.contract.state import NodeState, RunState


def result_node(state: RunState, events: Iterable[dict[str, Any]]) -> NodeState | None:
    """The node whose branch is the run's result, or None when no node has a branch."""
    in_worktrees = {node.id: node for node in state.nodes.values() if node.git is not None}
    if not in_worktrees:
        return None
    last: str | None = None
    for event in events:
        if (event.get("type") == "turn.status" and event.get("status") == "completed"
                and event.get("nodeId") in in_worktrees):
            last = event["nodeId"]
    if last is not None:
        return in_worktrees[last]
    entries = [node for node in in_worktrees.values() if node.entry]
    return entries[0] if entries else next(iter(in_worktrees.values()))
