"""Budgets: which ``budget`` limit (a node's or the run's) the folded usage has reached.

Usage is the reducer's fold of ``telemetry.usage`` and ``turn.status`` events
(``usage``, ``nodeUsage``), so the totals checked here are the ones every view shows and
the ones a resumed engine finds. Wall time adds the part still running: the run's since
``runningSince``, a node's since its running turn's clock started; neither clock runs while
only a person can move things on (desktop/store/turn_clock.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from desktop.store.turn_clock import clock_start

LIMITS = (("maxTokens", "tokens"), ("maxCostUsd", "costUsd"), ("maxWallSec", "wallSec"))
"""Each limit of a budget and the usage figure it bounds."""


def _since(ts: Any, now: datetime) -> float:
    if type(ts) is not str:
        return 0.0
    try:
        return max(0.0, (now - datetime.fromisoformat(ts)).total_seconds())
    except ValueError:
        return 0.0


def figures(usage: dict[str, Any], running_since: Any, now: datetime) -> dict[str, float]:
    """The figures a budget bounds: tokens (input + output), costUsd, wallSec."""
    tokens = float(usage.get("inputTokens", 0.0)) + float(usage.get("outputTokens", 0.0))
    found = {"tokens": tokens, "wallSec": float(usage.get("wallSec", 0.0))
             + _since(running_since, now)}
    if usage.get("costUsd") is not None:
        found["costUsd"] = float(usage["costUsd"])
    return found


def _reached(budget: Any, used: dict[str, float]) -> tuple[str, float, float] | None:
    if type(budget) is not dict:
        return None
    for limit, figure in LIMITS:
        value = budget.get(limit)
        if type(value) in (int, float) and figure in used and used[figure] >= value:
            return limit, float(value), used[figure]
    return None


def exceeded(state: dict[str, Any], node_id: str | None,
             now: datetime | None = None) -> dict[str, Any] | None:
    """The ``run.budget_exceeded`` event (without envelope) for the first limit reached:
    ``node_id``'s own budget first, then the run's; None when every limit holds."""
    now = now or datetime.now(UTC)
    if node_id is not None:
        config = (state.get("nodeConfigs") or {}).get(node_id) or {}
        turn = (state.get("runningTurns") or {}).get(node_id) or {}
        usage = (state.get("nodeUsage") or {}).get(node_id) or {}
        used = figures(usage, clock_start(turn), now)
        hit = _reached(config.get("budget"), used)
        if hit is not None:
            return _event(hit, used, node_id)
    used = figures(state.get("usage") or {}, state.get("runningSince"), now)
    hit = _reached(state.get("budget"), used)
    return _event(hit, used, None) if hit is not None else None


def _event(hit: tuple[str, float, float], used: dict[str, float],
           node_id: str | None) -> dict[str, Any]:
    limit, value, spent = hit
    event: dict[str, Any] = {"type": "run.budget_exceeded", "limit": limit, "budget": value,
                             "used": round(spent, 6),
                             "usage": {k: round(v, 6) for k, v in used.items()}}
    if node_id is not None:
        event["nodeId"] = node_id
    return event


def with_nodes(state: dict[str, Any]) -> list[str]:
    """Nodes that have a budget of their own and a running turn (wall time moves)."""
    configs = state.get("nodeConfigs") or {}
    return [n for n in (state.get("runningTurns") or {})
            if type(configs.get(n)) is dict and configs[n].get("budget")]
