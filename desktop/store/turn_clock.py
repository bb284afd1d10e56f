"""Wall-time clocks that stop while only a person can move things on.

A wall budget (``maxWallSec``) caps an agent that runs away; time a turn spends waiting
for a person (a gated tool call, a best-of-N choice, a merge that conflicts) is not the
agent's, so it does not count. The fold keeps, per running turn:

- ``clockSince``: when its clock last started (its ``startedAt`` until it first waited);
- ``waitingSince``: set while the turn waits for a person, its clock stopped (the time
  up to then is already in the node's ``nodeUsage.wallSec``);
- ``agents``: a best-of-N turn's attempts whose agents run (``attempt.started`` not yet
  ``attempt.completed``).

A turn waits when its node has as many pending approvals as it has agents running (at
least one): a best-of-N turn with one attempt held and two still working is working.
The run's own clock (``runningSince``) stops the same way while a question is open and
every running turn waits (none may run yet: a merge that conflicts is asked before its
turn starts), and starts again when one goes on.

Readers take a running turn's clock from :func:`clock_start`, so the engine's budget check
and the views' meters count the same seconds.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

State = dict[str, Any]

CLOCK_EVENTS = frozenset({"approval.requested", "approval.resolved", "turn.status",
                          "attempt.started", "attempt.completed", "run.started",
                          "run.resumed"})
"""Events after which a turn (or the run) may start or stop waiting."""


def waiting(turn: Any) -> bool:
    """Whether ``turn`` (a ``runningTurns`` entry) waits for a person, its clock stopped."""
    return type(turn) is dict and "waitingSince" in turn


def clock_start(turn: Any) -> str | None:
    """When ``turn``'s (a ``runningTurns`` entry's) clock started; None while it waits."""
    if type(turn) is not dict or waiting(turn):
        return None
    since = turn.get("clockSince") or turn.get("startedAt")
    return since if type(since) is str else None


def seconds(start: Any, end: Any) -> float:
    """Seconds from one event time to another (0 when either is missing or malformed)."""
    if type(start) is not str or type(end) is not str:
        return 0.0
    try:
        return max(0.0, (datetime.fromisoformat(end) - datetime.fromisoformat(start))
                   .total_seconds())
    except ValueError:
        return 0.0


def _add_wall(usage: dict[str, Any], seconds: float) -> None:
    usage["wallSec"] = float(usage.get("wallSec", 0.0)) + seconds


def _held(s: State, node_id: str, turn: dict[str, Any]) -> bool:
    asked = sum(1 for p in (s.get("pendingApprovals") or {}).values()
                if type(p) is dict and p.get("nodeId") == node_id)
    agents = turn.get("agents")
    return asked > 0 and asked >= max(1, agents if type(agents) is int else 0)


def _sync_turn(s: State, node_id: str, ts: str) -> None:
    turn = (s.get("runningTurns") or {}).get(node_id)
    if type(turn) is not dict:
        return
    held = _held(s, node_id, turn)
    if held and "waitingSince" not in turn:
        usage = s.setdefault("nodeUsage", {}).setdefault(node_id, {})
        _add_wall(usage, seconds(clock_start(turn), ts))
        turn.pop("clockSince", None)
        turn["waitingSince"] = ts
    elif not held and "waitingSince" in turn:
        del turn["waitingSince"]
        turn["clockSince"] = ts


def _sync_run(s: State, ts: str) -> None:
    running = s.get("runningTurns") or {}
    if s.get("status") != "running":
        return
    # a merge that conflicts is asked before its turn starts: no running turn then
    held = bool(s.get("pendingApprovals")) and all(waiting(t) for t in running.values())
    if held and "runningSince" in s:
        _add_wall(s.setdefault("usage", {}), seconds(s.pop("runningSince"), ts))
    elif not held and "runningSince" not in s:
        s["runningSince"] = ts


def count_agent(s: State, e: dict[str, Any]) -> None:
    """``attempt.started`` / ``attempt.completed``: one more (or fewer) agent of the node's
    running turn works."""
    turn = (s.get("runningTurns") or {}).get(e.get("nodeId"))
    if type(turn) is not dict:
        return
    agents = turn.get("agents") if type(turn.get("agents")) is int else 0
    turn["agents"] = max(0, agents + (1 if e.get("type") == "attempt.started" else -1))


def after(s: State, e: dict[str, Any]) -> None:
    """Start or stop the clocks ``e`` (of :data:`CLOCK_EVENTS`, already folded) affects."""
    ts = e.get("ts")
    if type(ts) is not str:
        return
    node_id = e.get("nodeId")
    if type(node_id) is str:
        _sync_turn(s, node_id, ts)
    _sync_run(s, ts)


__all__ = ["CLOCK_EVENTS", "after", "clock_start", "count_agent", "seconds", "waiting"]
