"""What a batch of a run's events changes, as typed notices the run's panels subscribe to.

The fold (desktop/store/reducer.py, through :class:`~desktop.views.state.RunProjection`)
says what a run *is*; these notices say what just *happened* that a view acts on: a
request opened or closed, a stall caught or over, a turn's or the run's status moved, a
node failed, a diff written, an envelope sent. They are read from the events here, once,
so no panel (nor the CLI's plain view) switches on an event's ``type``. Names and
instructions come from the run's state, not from here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from desktop.views.tool_calls import ENGINE, WITHDRAWN

STALL_ENDS = frozenset({"run.resumed", "run.started", "run.stopped", "run.completed",
                        "run.failed"})
"""Events after which a run is no longer paused on a stall."""


@dataclass(frozen=True)
class ApprovalOpened:
    """A tool call, merge or other request now waits for a decision."""

    approval_id: str
    request: dict[str, Any]
    """The ``approval.requested`` event."""


@dataclass(frozen=True)
class ApprovalClosed:
    """A request was decided (by anyone) or withdrawn."""

    approval_id: str
    status: str = ""
    """approved, denied, modified, ... as its resolution says; withdrawn when its engine
    denied it on letting go of the run."""
    reason: str = ""
    by: str = ""
    """Who decided, as the log names it (desktop/views/deciders.py words it)."""
    resolution: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    """The whole resolution, as the log has it (a merge's: which side each file took)."""


@dataclass(frozen=True)
class RunStalled:
    """The run paused on a node that looks stuck."""

    stall: dict[str, Any]
    """The ``run.stalled`` event: ``nodeId``, ``reason``, ``evidence``."""


@dataclass(frozen=True)
class BudgetExceeded:
    """The run paused because usage reached a ``budget`` limit (``node_id`` '' for the
    run's own budget); its spending turn was stopped."""

    node_id: str
    limit: str
    """maxTokens, maxCostUsd or maxWallSec."""
    budget: float
    used: float


@dataclass(frozen=True)
class StallEnded:
    """The run resumed, started again or ended: a stall shown is over."""


@dataclass(frozen=True)
class NodeFailed:
    """A node's turn failed, or the run failed at a node (``node_id`` '' for the run)."""

    node_id: str
    reason: str
    agent_run_id: str | None = None
    """The failed agent process run, when the event names it."""


@dataclass(frozen=True)
class DiffAdded:
    """A node's turn left a diff (an ``artifact.created`` of kind diff)."""

    node_id: str | None
    path: str
    """As the artifact gives it: relative to the run folder, or absolute."""
    created_at: str = ""
    artifact_id: str = ""
    """The artifact's id: how a client of the service asks for its text."""


@dataclass(frozen=True)
class HandoffSent:
    """An envelope left one node for another."""

    from_node: str
    to_node: str
    kind: str = ""
    """handoff, report, ... as the envelope says."""


@dataclass(frozen=True)
class TurnChanged:
    """A node's turn started, ended, failed or was cancelled."""

    node_id: str
    status: str
    reason: str = ""


@dataclass(frozen=True)
class RunChanged:
    """The run's status moved: ``kind`` is the event (``run.started``, ``run.paused``,
    ``run.stalled``, ``run.completed``, ...)."""

    kind: str
    reason: str = ""


WORKSPACE_NOTE, ISOLATION_NOTE = "workspace: ", "isolation: "
ENGINE_NOTES = (WORKSPACE_NOTE, ISOLATION_NOTE)
"""How the engine's own notes on a node's working folder begin (``node.log``, stderr): the
user should read them where they follow the run, not only in the node's transcript."""


@dataclass(frozen=True)
class EngineNote:
    """The engine's note on a node's working folder (its repository mid-merge, a
    worktree asked for outside git)."""

    node_id: str
    text: str


Notice = (ApprovalOpened | ApprovalClosed | RunStalled | BudgetExceeded | StallEnded
          | NodeFailed | DiffAdded | HandoffSent | TurnChanged | RunChanged | EngineNote)
N = TypeVar("N", ApprovalOpened, ApprovalClosed, RunStalled, BudgetExceeded, StallEnded,
            NodeFailed, DiffAdded, HandoffSent, TurnChanged, RunChanged, EngineNote)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _approval(event: dict[str, Any], kind: str) -> list[Notice]:
    approval_id = str(event.get("approvalId") or "")
    if not approval_id:
        return []
    if kind == "approval.requested":
        return [ApprovalOpened(approval_id, event)]
    res = event.get("resolution") if isinstance(event.get("resolution"), dict) else {}
    status = _text(res.get("status"))
    if status == "denied" and res.get("by") == ENGINE:  # its engine let go: nobody said no
        status = WITHDRAWN
    return [ApprovalClosed(approval_id, status, _text(res.get("reason")), _text(res.get("by")),
                           res)]


def _failure(event: dict[str, Any], kind: str) -> list[Notice]:
    node_id = str(event.get("nodeId") or "")
    if kind == "run.failed":
        return [NodeFailed(node_id, str(event.get("reason") or "the run failed"))]
    turn: list[Notice] = [TurnChanged(node_id, _text(event.get("status")),
                                      _text(event.get("reason")))]
    if event.get("status") != "failed":
        return turn
    agent_run = event.get("agentRunId")
    return [*turn, NodeFailed(node_id, str(event.get("reason") or "the turn failed"),
                              str(agent_run) if agent_run else None)]


def _diff(event: dict[str, Any]) -> list[Notice]:
    art = event.get("artifact") if isinstance(event.get("artifact"), dict) else {}
    if art.get("kind") != "diff" or not art.get("path"):
        return []
    node_id = art.get("nodeId") or event.get("nodeId")
    return [DiffAdded(str(node_id) if node_id else None, str(art["path"]),
                      str(art.get("createdAt") or ""), str(art.get("id") or ""))]


def _handoff(event: dict[str, Any]) -> list[Notice]:
    env = event.get("envelope") if isinstance(event.get("envelope"), dict) else {}
    source = env.get("fromNodeId") or event.get("nodeId") or ""
    return [HandoffSent(str(source), str(env.get("toNodeId") or ""), _text(env.get("kind")))]


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _budget(event: dict[str, Any]) -> BudgetExceeded:
    return BudgetExceeded(_text(event.get("nodeId")), _text(event.get("limit")),
                          _number(event.get("budget")), _number(event.get("used")))


def notices_of(events: Iterable[dict[str, Any]]) -> list[Notice]:
    """The notices in a batch of events, in their order."""
    out: list[Notice] = []
    for event in events:
        kind = event.get("type")
        if kind in ("approval.requested", "approval.resolved"):
            out += _approval(event, kind)
        elif kind == "run.stalled":
            out.append(RunStalled(event))
        elif kind == "run.budget_exceeded":
            out.append(_budget(event))
        elif kind in ("turn.status", "run.failed"):
            out += _failure(event, kind)
        elif kind == "artifact.created":
            out += _diff(event)
        elif kind == "handoff.sent":
            out += _handoff(event)
        elif kind == "node.log" and event.get("stream") == "stderr" \
                and _text(event.get("text")).startswith(ENGINE_NOTES):
            out.append(EngineNote(_text(event.get("nodeId")), event["text"]))
        if isinstance(kind, str) and kind.startswith("run.") and kind != "run.created":
            out.append(RunChanged(kind, _text(event.get("reason"))))
        if kind in STALL_ENDS:
            out.append(StallEnded())
    return out


@dataclass
class RunNotices:
    """Subscribers by notice type; :meth:`publish` reads a batch of events once and calls
    each notice's subscribers in order."""

    _subscribers: dict[type, list[Callable[[Any], None]]] = field(
        default_factory=lambda: defaultdict(list))

    def subscribe(self, kind: type[N], handler: Callable[[N], None]) -> None:
        """Call ``handler`` with every notice of type ``kind``."""
        self._subscribers[kind].append(handler)

    def publish(self, events: Iterable[dict[str, Any]]) -> list[Notice]:
        """Tell the subscribers what ``events`` change; the notices, for the caller."""
        notices = notices_of(events)
        for notice in notices:
            for handler in self._subscribers.get(type(notice), ()):
                handler(notice)
        return notices


__all__ = [
    "STALL_ENDS",
    "ApprovalClosed",
    "ApprovalOpened",
    "BudgetExceeded",
    "DiffAdded",
    "HandoffSent",
    "NodeFailed",
    "Notice",
    "RunChanged",
    "RunNotices",
    "RunStalled",
    "StallEnded",
    "TurnChanged",
    "notices_of",
]
