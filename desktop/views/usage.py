"""A run's (or a node's) usage as people and clients see it: tokens, cost and wall time.

The figures are the reducer's fold (``usage``, ``nodeUsage``). A cost no provider
reported is "unknown", never 0: an agent that says nothing about money may still cost it.
"""

from typing import Any

UNKNOWN = "unknown"


def total_tokens(usage: dict[str, Any]) -> int:
    """Input plus output tokens."""
    return int(usage.get("inputTokens", 0) + usage.get("outputTokens", 0))


def cost(usage: dict[str, Any]) -> float | str:
    """The cost in USD, or "unknown" when no provider reported one."""
    value = usage.get("costUsd")
    return round(float(value), 6) if value is not None else UNKNOWN


def cost_text(usage: dict[str, Any]) -> str:
    """``$0.1234``, or ``unknown``."""
    value = cost(usage)
    return value if isinstance(value, str) else f"${value:.4f}"


def cost_delta_text(delta: float) -> str:
    """``+$0.0012``, ``-$0.0022`` or ``±$0``: a change of cost in USD, to four decimals
    as :func:`cost_text` shows a cost, the sign before the dollar."""
    if round(delta, 4) == 0:
        return "±$0"
    return f"{'+' if delta > 0 else '-'}${abs(delta):,.4f}"


def usage_text(usage: dict[str, Any]) -> str:
    """``1,234 tokens (1,000 in, 234 out), $0.0123, 12s``."""
    parts = [f"{total_tokens(usage):,} tokens ({int(usage.get('inputTokens', 0)):,} in, "
             f"{int(usage.get('outputTokens', 0)):,} out)", f"cost {cost_text(usage)}"]
    if usage.get("wallSec"):
        parts.append(f"{usage['wallSec']:.0f}s running")
    return ", ".join(parts)


def budget_text(budget: dict[str, Any]) -> str:
    """``4,000 tokens, $1.00, 600s``: the limits a budget sets."""
    parts = []
    if budget.get("maxTokens") is not None:
        parts.append(f"{int(budget['maxTokens']):,} tokens")
    if budget.get("maxCostUsd") is not None:
        parts.append(f"${float(budget['maxCostUsd']):.2f}")
    if budget.get("maxWallSec") is not None:
        parts.append(f"{float(budget['maxWallSec']):g}s")
    return ", ".join(parts) or "no limit"


_LIMIT_WORDS = {"maxTokens": "tokens", "maxCostUsd": "cost (USD)", "maxWallSec": "wall time (s)"}


def exceeded_text(found: dict[str, Any], whose: str) -> str:
    """``paused: budget of NODE reached: tokens 4,020 of 4,000``."""
    limit = str(found.get("limit"))
    word = _LIMIT_WORDS.get(limit, limit)
    return (f"budget of {whose} reached: {word} {float(found.get('used') or 0):,.6g} of "
            f"{float(found.get('budget') or 0):,.6g}; raise it with `budget` and resume")
