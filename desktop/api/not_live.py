"""What a command on a run that no engine of this service holds answers when the path it
addresses names a node, edge or inbox item the run never had.

An unknown id is unknown whatever the run's state: resuming the run would not make it
exist, so 409 ``run_not_live`` ("resume it first") would send the client the wrong way.
As on a live run, and as an unknown approval is answered whatever its run's state, it is
404 ``not_found`` on the path's field; only a command whose target the run has gets 409
``run_not_live``. Body fields (a chat's node, an inbox edit's ``nodeId``) are checked once
the run is live, as before.

The run's nodes and edges come from its folded state; whether an inbox item was ever
queued, from its log (consumed items leave the state), reading only the lines that hold
the item's id.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from desktop.contract.state import RunState
from desktop.runtime.control import (
    Command,
    CommandError,
    DeleteEdge,
    DeleteNode,
    EditInbox,
    NotFound,
    PatchNode,
    node_id_of,
)
from desktop.store.jsonl import EVENTS_FILE


def unknown_target(folder: Path, state: RunState, command: Command) -> CommandError | None:
    """The NotFound for the node, edge or inbox item ``command``'s path names, when the
    run in ``folder`` (whose state is ``state``) never had it; None otherwise (also for
    commands that address no such thing). Reads the log: call it off the loop."""
    match command:
        case PatchNode(node=node) | DeleteNode(node=node):
            try:
                node_id_of(state, node, "nodeId")
            except NotFound as exc:
                return exc
        case DeleteEdge(edge_id=edge_id) if edge_id not in state.edges:
            return NotFound(f"the run has no edge {edge_id!r}", "edgeId")
        case EditInbox(item_id=item_id) if not was_queued(folder, item_id):
            return NotFound(f"the run has no inbox item {item_id!r}", "itemId")
    return None


def was_queued(folder: Path, item_id: str) -> bool:
    """Whether the run's log records an inbox item ``item_id`` being queued."""
    needle = orjson.dumps(item_id)  # as the log spells it, quotes included
    try:
        with (folder / EVENTS_FILE).open("rb") as fh:
            for line in fh:
                if needle not in line:
                    continue  # the common case: no line to parse
                try:
                    event = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # a torn last line
                if isinstance(event, dict) and event.get("type") == "inbox.queued" \
                        and isinstance(event.get("item"), dict) \
                        and event["item"].get("id") == item_id:
                    return True
    except FileNotFoundError:
        return False
    return False
