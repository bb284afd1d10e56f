"""A merge the run waits for that is not asked yet: where to ask for it.

An engine that lets go of a run while a merge that conflicts waits (`run` at the end of
its input) withdraws it: the merge is undone, the node's input goes back to its inbox,
and the merge is asked again when that node's next turn starts. In AUTO mode that is as
soon as the run goes on; in INTERACTIVE mode only when the node is stepped. Until then
a ``merge`` command has nothing to answer, and says which step asks it again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from desktop.contract.enums import Mode, RunStatus
from desktop.contract.state import NodeState, RunState


def withdrawn_merges(state: RunState, events: Iterable[dict[str, Any]]) -> list[str]:
    """Nodes, oldest first, whose merge an engine withdrew and that has not been asked
    since, while their input still waits (no turn runs for them yet)."""
    asked: dict[str, str] = {}  # open merge approval -> its node
    withdrawn: dict[str, str] = {}  # node -> the merge approval withdrawn
    for event in events:
        kind = event.get("type")
        node = event.get("nodeId")
        if kind == "approval.requested" and event.get("kind") == "merge" \
                and type(node) is str:
            asked[str(event.get("approvalId"))] = node
            withdrawn.pop(node, None)
        elif kind == "approval.resolved" and event.get("approvalId") in asked:
            node = asked.pop(str(event["approvalId"]))
            resolution = event.get("resolution") or {}
            if resolution.get("by") == "engine" and resolution.get("status") == "denied":
                withdrawn[node] = str(event["approvalId"])
            else:
                withdrawn.pop(node, None)
    pending = {p.node_id for p in state.pending_approvals.values()}
    return [node for node in withdrawn
            if node in state.nodes and state.inboxes.get(node)
            and node not in state.running_turns and node not in pending]


def node_word(node: NodeState) -> str:
    """How a console command names ``node``: its key, else the start of its id."""
    return node.key or node.id[:8]


def merge_hint(state: RunState, events: Iterable[dict[str, Any]]) -> str | None:
    """What a ``merge`` with no merge approval pending should do first, or None when no
    merge waits to be asked again (or the run asks it by itself)."""
    waiting = withdrawn_merges(state, events)
    if not waiting:
        return None
    node = state.nodes[waiting[0]]
    if state.mode == Mode.INTERACTIVE:
        return (f"the merge of {node.label} is asked again when {node.label}'s turn is "
                f"stepped: `step {node_word(node)}` first")
    if state.status == RunStatus.PAUSED:
        return (f"the merge of {node.label} is asked again when the run goes on: "
                "`resume` first")
    return None


__all__ = ["merge_hint", "node_word", "withdrawn_merges"]
