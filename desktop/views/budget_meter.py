"""The budget meter of a node's card and of the run's toolbar: usage in a few words and how
much of the budget it has used.

Figures come from the run's fold (``usage``, ``nodeUsage``, ``budget``, a node config's
``budget``, ``budgetExceeded``), measured the way the engine checks them
(:func:`desktop.runtime.budget.figures`), so the meter turns red exactly when the run
pauses. A cost no provider reported reads "cost unknown", never $0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from desktop.runtime.budget import LIMITS, figures
from desktop.store.turn_clock import clock_start, waiting

NEAR = 0.8
"""From this share of a limit on, the meter warns (amber)."""

OK, NEAR_LIMIT, OVER = "ok", "near", "over"
LEVELS = (OK, NEAR_LIMIT, OVER)
"""Meter levels, calmest first."""

LIMIT_WORDS = {"maxTokens": "tokens", "maxCostUsd": "cost", "maxWallSec": "time"}


def tokens_text(tokens: float) -> str:
    """``950 tok``, ``12.3k tok``, ``4.5M tok``."""
    n = max(0, int(tokens))
    if n < 1000:
        return f"{n} tok"
    if n < 999_950:
        return f"{n / 1000:.1f}k tok"
    return f"{n / 1_000_000:.1f}M tok"


def money_text(cost: float) -> str:
    """``$0.04``; a cost under a cent keeps four places (``$0.0012``), and one too small
    for them reads ``<$0.0001`` (a cost that is known, and not zero, never reads $0)."""
    if cost <= 0:
        return "$0.00"
    if cost < 0.0001:
        return "<$0.0001"
    return f"${cost:.4f}" if cost < 0.01 else f"${cost:.2f}"


def limit_text(limit: str, value: float) -> str:
    """A figure as its limit reads: ``4,000 tokens``, ``$1.00``, ``600s``."""
    if limit == "maxTokens":
        return f"{value:,.0f} tokens"
    if limit == "maxCostUsd":
        return money_text(value) if value < 0.01 else f"${value:,.2f}"
    return f"{value:,.0f}s"


@dataclass(frozen=True, slots=True)
class Meter:
    """Usage of a node (or the run) and the share of its budget used."""

    tokens: float
    cost: float | None
    """USD, None when no provider reported a cost."""
    share: float | None
    """Used / limit of the limit nearest to being reached; None without a budget."""
    limit: str | None = None
    """That limit: maxTokens, maxCostUsd or maxWallSec."""
    exceeded: bool = False
    """The run paused on this budget."""

    @property
    def level(self) -> str:
        """ok, near (from 80 % of a limit) or over (a limit reached)."""
        if self.exceeded or (self.share is not None and self.share >= 1):
            return OVER
        return NEAR_LIMIT if self.share is not None and self.share >= NEAR else OK

    @property
    def percent(self) -> int | None:
        """The share in whole percent, rounded down (100 % means reached)."""
        return None if self.share is None else math.floor(self.share * 100 + 1e-9)

    @property
    def usage_text(self) -> str:
        """``12.3k tok · $0.04``, or ``12.3k tok · cost unknown``."""
        cost = "cost unknown" if self.cost is None else money_text(self.cost)
        return f"{tokens_text(self.tokens)} · {cost}"

    @property
    def text(self) -> str:
        """The usage and, with a budget, the share used: ``12.3k tok · $0.04 · 83%``."""
        return self.usage_text if self.percent is None else \
            f"{self.usage_text} · {self.percent}%"

    @property
    def budget_text(self) -> str:
        """``83% of the tokens budget``, or "" without a budget."""
        if self.percent is None or self.limit is None:
            return ""
        return f"{self.percent}% of the {LIMIT_WORDS.get(self.limit, self.limit)} budget"


def _reported(usage: dict[str, Any]) -> bool:
    """Whether any agent reported tokens or a cost (wall time alone is the run's own)."""
    return bool(usage.get("inputTokens") or usage.get("outputTokens")
                or usage.get("costUsd") is not None)


def meter(usage: dict[str, Any], budget: Any, running_since: Any = None,
          now: datetime | None = None, exceeded: bool = False) -> Meter:
    """The meter of one ``usage`` fold against one ``budget`` (either may be empty)."""
    if not budget or type(budget) is not dict:  # usage only: no clock to read
        tokens = float(usage.get("inputTokens", 0.0)) + float(usage.get("outputTokens", 0.0))
        cost = usage.get("costUsd")
        return Meter(tokens, None if cost is None else float(cost), None, None, exceeded)
    used = figures(usage, running_since, now or datetime.now(UTC))
    share: float | None = None
    nearest: str | None = None
    for limit, figure in LIMITS:
        value = budget.get(limit)
        if type(value) in (int, float) and value > 0 and figure in used:
            part = used[figure] / value
            if share is None or part > share:
                share, nearest = part, limit
    return Meter(used["tokens"], used.get("costUsd"), share, nearest, exceeded)


def node_meter(state: dict[str, Any] | None, node_id: str,
               now: datetime | None = None) -> Meter | None:
    """The meter of ``node_id``'s card: None while no agent reported usage for it and it
    has no budget."""
    state = state or {}
    usage = (state.get("nodeUsage") or {}).get(node_id) or {}
    budget = ((state.get("nodeConfigs") or {}).get(node_id) or {}).get("budget")
    if not _reported(usage) and not budget:
        return None
    turn = (state.get("runningTurns") or {}).get(node_id) or {}
    found = state.get("budgetExceeded") or {}
    over = state.get("status") == "paused" and found.get("nodeId") == node_id
    return meter(usage, budget, clock_start(turn), now, over)


def ticking(state: dict[str, Any] | None) -> list[str]:
    """Nodes whose meter moves with the clock: a running turn not waiting for a person,
    and a wall-time limit."""
    state = state or {}
    configs = state.get("nodeConfigs") or {}
    return [n for n, turn in (state.get("runningTurns") or {}).items()
            if not waiting(turn)
            and ((configs.get(n) or {}).get("budget") or {}).get("maxWallSec") is not None]


def run_ticking(state: dict[str, Any] | None) -> bool:
    """The run's own meter moves with the clock: it runs against a wall-time limit."""
    state = state or {}
    return (state.get("status") == "running" and bool(state.get("runningSince"))
            and ((state.get("budget") or {}).get("maxWallSec") is not None))


def run_meter(state: dict[str, Any] | None, now: datetime | None = None) -> Meter | None:
    """The meter of the run's toolbar: its total usage against the run's budget (None
    while no agent reported usage and the run has no budget)."""
    if not state or not (_reported(state.get("usage") or {}) or state.get("budget")):
        return None
    found = state.get("budgetExceeded") or {}
    over = state.get("status") == "paused" and bool(found) and not found.get("nodeId")
    return meter(state.get("usage") or {}, state.get("budget"), state.get("runningSince"),
                 now, over)


@dataclass(frozen=True)
class Overrun:
    """The budget a paused run reached: whose, which limit, the usage against it."""

    node_id: str | None
    """None: the run's own budget."""
    limit: str
    budget: float
    used: float

    @property
    def what(self) -> str:
        """``tokens``, ``cost`` or ``time``."""
        return LIMIT_WORDS.get(self.limit, self.limit)

    @property
    def usage_text(self) -> str:
        """``4,020 tokens of 4,000 tokens``."""
        return f"{limit_text(self.limit, self.used)} of {limit_text(self.limit, self.budget)}"

    def suggested(self) -> float:
        """A new limit to offer: twice the old one, and room for the stopped turn to
        spend again what it spent (resuming starts it over, and what it spent stays
        counted; no turn spent more than ``used``), with a quarter to spare."""
        value = max(self.budget * 2, self.used * 2.5)
        if self.limit == "maxCostUsd":
            return math.ceil(value * 100) / 100  # whole cents, never below what it allows
        return float(math.ceil(value))


def overrun(state: dict[str, Any] | None) -> Overrun | None:
    """The budget the run is paused on, or None when it is not paused on one."""
    state = state or {}
    found = state.get("budgetExceeded")
    if state.get("status") != "paused" or not isinstance(found, dict):
        return None
    limit = found.get("limit")
    if limit not in LIMIT_WORDS:
        return None
    node_id = found.get("nodeId")
    return Overrun(node_id if isinstance(node_id, str) else None, str(limit),
                   _number(found.get("budget")), _number(found.get("used")))


def _number(value: Any) -> float:
    return float(value) if type(value) in (int, float) else 0.0
