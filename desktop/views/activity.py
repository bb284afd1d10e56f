"""What each node of a run is doing: the rows the canvas overlay and the CLI live view show.

:func:`node_activity` reads the folded run state (status, summary, last activity time,
turns, inbox, whether a gated call waits for a decision); :class:`RecentActivity`
follows the events for each node's latest action (a tool call, a final message, a turn
that failed), which the state does not keep.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from desktop.views.tool_calls import AWAITING


def short(value: Any, width: int = 70) -> str:
    """``value`` on one line of at most ``width`` characters."""
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def tool_text(tool: dict[str, Any]) -> str:
    """A one-line description of a tool call."""
    args = tool.get("args") or {}
    if "cmd" in args:
        return f"{tool.get('name')}: $ {short(args['cmd'])}"
    if "path" in args:
        return f"{tool.get('name')}: {args['path']}"
    return f"{tool.get('name')} {short(args)}"


class RecentActivity:
    """The latest action of each node, followed from its events (call with each batch)."""

    def __init__(self) -> None:
        self.latest: dict[str, str] = {}

    def __call__(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            node_id, kind = event.get("nodeId"), event.get("type")
            if not node_id:
                continue
            if kind == "tool.proposed":
                self.latest[node_id] = tool_text(event.get("tool") or {})
            elif kind == "message.assistant.final":
                self.latest[node_id] = short(event.get("text", ""))
            elif kind == "turn.status" and event.get("status") == "completed":
                self.latest.pop(node_id, None)  # the node's summary says it best
            elif kind == "turn.status":
                self.latest[node_id] = f"turn {event.get('status')}" + (
                    f": {short(event['reason'])}" if event.get("reason") else "")


@dataclass(frozen=True)
class NodeActivity:
    """One node as the live views show it."""

    node_id: str
    label: str
    status: str  # the node's own: idle, running, blocked, failed
    summary: str
    last_activity: str | None  # timestamp of its latest event
    awaiting: bool  # one of its gated calls waits for a decision
    turns: int
    inbox: int
    doing: str  # its latest action, else its summary

    @property
    def shown_status(self) -> str:
        """The status to show: a call waiting for approval says so first."""
        return AWAITING if self.awaiting else self.status


def node_activity(state: dict | None, recent: RecentActivity | None = None
                  ) -> dict[str, NodeActivity]:
    """Node id -> its activity, in the state's node order, from a wire-form run state."""
    state = state or {}
    awaiting = {p.get("nodeId") for p in (state.get("pendingApprovals") or {}).values()}
    turns, inboxes = state.get("turns") or {}, state.get("inboxes") or {}
    latest = recent.latest if recent is not None else {}
    out: dict[str, NodeActivity] = {}
    for node_id, node in (state.get("nodes") or {}).items():
        summary = str(node.get("summary") or "")
        out[node_id] = NodeActivity(
            node_id=node_id, label=str(node.get("label") or node_id[:8]),
            status=str(node.get("status", "idle")), summary=summary,
            last_activity=node.get("lastActivityAt"), awaiting=node_id in awaiting,
            turns=int(turns.get(node_id, 0)), inbox=len(inboxes.get(node_id) or ()),
            doing=latest.get(node_id) or summary)
    return out
