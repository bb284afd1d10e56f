"""What each node of a run is doing: the rows the canvas overlay and the CLI live view show.

:func:`node_activity` reads the folded run state (status, summary, last activity time,
turns, inbox, whether a gated call waits for a decision); :class:`RecentActivity`
follows the events for each node's latest action (a tool call, a final message, a turn
that failed), which the state does not keep; :class:`StepOrder` follows when each inbox
item was queued, to tell which node an INTERACTIVE step runs next.

A node's shown status says what it is doing or, once the run ended, how it ended:

========================  ===================================================
``awaiting approval``     one of its gated calls waits for a decision
``running``               it takes a turn
``failed`` / ``blocked``  its last turn failed / it is blocked (while the run lasts)
``next``                  INTERACTIVE: Step (F10) runs this node's turn
``waiting``               input is queued for it (a step, a slot or a resume)
``done``                  the run ended; the node took its turns
``stopped``               the run was stopped (or failed) before it finished
``not run``               the run ended and the node never took a turn
``idle``                  nothing to do for now
========================  ===================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from desktop.contract.enums import RUN_ENDED
from desktop.views.subflows import subflow_status
from desktop.views.tool_calls import AWAITING

NEXT = "next"
WAITING = "waiting"
DONE = "done"
STOPPED = "stopped"
NOT_RUN = "not run"


def short(value: Any, width: int = 70) -> str:
    """``value`` on one line of at most ``width`` characters."""
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _end(value: Any) -> str:
    """A node an agent names: ``self`` is the asking node itself."""
    return "itself" if value == "self" else short(str(value), 30)


def _management_text(name: str, args: dict[str, Any]) -> str | None:
    """What an agent asks of the graph, in words (desktop/runtime/management.py), or None
    for another tool."""
    if name == "spawn_node":
        key = args.get("key") or args.get("id") or "?"
        about = ", ".join(short(str(part), 30) for part in (
            key, args.get("roleTemplate"), args.get("provider")) if part)
        wired = f", a handoff from {_end(args['connectFrom'])}" if args.get("connectFrom") \
            else ""
        return f'spawn_node: a node "{short(str(args.get("label") or key))}" ({about}){wired}'
    if name == "create_edge":
        labelled = f' "{short(str(args["label"]))}"' if args.get("label") else ""
        both = " both ways" if args.get("bidirectional") else ""
        kind = short(str(args["type"]), 30) if args.get("type") else "handoff"
        return (f"create_edge: a {kind}{labelled} from {_end(args.get('from', '?'))} to "
                f"{_end(args.get('to', '?'))}{both}")
    return None


def tool_text(tool: dict[str, Any]) -> str:
    """A one-line description of a tool call."""
    args = tool.get("args") or {}
    if not isinstance(args, dict):
        return f"{tool.get('name')} {short(args)}"
    management = _management_text(str(tool.get("name")), args)
    if management is not None:
        return management
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


class StepOrder:
    """When each inbox item was queued (the seq of its ``inbox.queued``), as the engine's
    scheduler orders INTERACTIVE steps: first in, first out. Call with each batch."""

    def __init__(self) -> None:
        self.queued: dict[str, int] = {}

    def __call__(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            if event.get("type") == "inbox.queued":
                item = event.get("item") or {}
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    self.queued.setdefault(item["id"], int(event.get("seq") or 0))

    def next_node(self, state: dict | None) -> str | None:
        """The node a step without a node would run now (None: no turn is pending)."""
        state = state or {}
        running = state.get("runningTurns") or {}
        nodes = state.get("nodes") or {}
        ready = []
        for place, (node_id, items) in enumerate((state.get("inboxes") or {}).items()):
            if not items or node_id in running or node_id not in nodes:
                continue
            first = min(self.queued.get(i.get("id"), 1 << 62) for i in items)
            ready.append((first, place, node_id))
        return min(ready)[2] if ready else None


def shown_status(status: str, *, awaiting: bool, inbox: int, turns: int, run_status: str,
                 is_next: bool) -> str:
    """What a node shows (see the table above) from its own status and the run's."""
    if awaiting:
        return AWAITING
    if status in ("running", "failed", "blocked"):
        # blocked waits on the run (a stall pauses it): once the run ended, nothing waits
        ended = status in ("running", "blocked") and run_status in RUN_ENDED
        return STOPPED if ended else status
    if run_status in RUN_ENDED:
        if inbox:
            return STOPPED if run_status != "completed" else WAITING
        if turns:
            return DONE
        return STOPPED if run_status == "stopped" else NOT_RUN
    if inbox:
        return NEXT if is_next else WAITING
    return "idle"


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
    shown_status: str = "idle"  # what to show: see the module's table
    next_up: bool = False  # INTERACTIVE: the node a step runs now


def node_activity(state: dict | None, recent: RecentActivity | None = None,
                  order: StepOrder | None = None) -> dict[str, NodeActivity]:
    """Node id -> its activity, in the state's node order, from a wire-form run state.

    Without ``order`` (when each item was queued) the next step is guessed from the
    inboxes' order."""
    state = state or {}
    awaiting = {p.get("nodeId") for p in (state.get("pendingApprovals") or {}).values()}
    turns, inboxes = state.get("turns") or {}, state.get("inboxes") or {}
    latest = recent.latest if recent is not None else {}
    run_status = str(state.get("status") or "")
    interactive = state.get("mode") == "INTERACTIVE" and run_status not in RUN_ENDED
    next_id = (order or StepOrder()).next_node(state) if interactive else None
    out: dict[str, NodeActivity] = {}
    for node_id, node in (state.get("nodes") or {}).items():
        summary = str(node.get("summary") or "")
        status = (subflow_status(state, node_id) if node.get("subflow")
                  else str(node.get("status", "idle")))
        waiting = len(inboxes.get(node_id) or ())
        done = int(turns.get(node_id, 0))
        out[node_id] = NodeActivity(
            node_id=node_id, label=str(node.get("label") or node_id[:8]),
            status=status, summary=summary,
            last_activity=node.get("lastActivityAt"), awaiting=node_id in awaiting,
            turns=done, inbox=waiting, doing=latest.get(node_id) or summary,
            shown_status=shown_status(status, awaiting=node_id in awaiting, inbox=waiting,
                                      turns=done, run_status=run_status,
                                      is_next=node_id == next_id),
            next_up=node_id == next_id)
    return out
