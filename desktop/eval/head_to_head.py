"""Head to head: which side did better on each case, and the new side's win rate.

A case is a **win** for the new workflow when its pass rate over the repeats is higher
than the baseline's or, at equal pass rates, its share of checks passed is higher; a
**loss** is the mirror image, and anything else a **tie**. The win rate counts a tie as
half a win, over the cases both sides ran, with its 95 % Wilson interval. Comparing a
workflow whose node takes ``attempts: N`` with the same workflow taking one, it says how
often best-of-N beats a single attempt.
"""

from __future__ import annotations

from typing import Any

from desktop.eval.stats import wilson
from desktop.wording import plural

OUTCOMES = ("win", "tie", "loss")


def check_score(side: dict[str, Any]) -> float:
    """The share of check results that passed, over every check of every sample."""
    checks = side.get("checks") or []
    samples = sum(int(c.get("samples") or 0) for c in checks)
    return sum(int(c.get("passes") or 0) for c in checks) / samples if samples else 0.0


def outcome(baseline: dict[str, Any], new: dict[str, Any]) -> str | None:
    """``win``, ``tie`` or ``loss`` for the new side; None when a side has no sample."""
    if not baseline.get("samples") or not new.get("samples"):
        return None
    ours = (new["passes"] / new["samples"], check_score(new))
    theirs = (baseline["passes"] / baseline["samples"], check_score(baseline))
    return "win" if ours > theirs else "loss" if ours < theirs else "tie"


def summary(outcomes: list[str | None]) -> dict[str, Any]:
    """Wins, ties and losses, and the win rate (a tie is half a win) with its interval."""
    counted = [o for o in outcomes if o is not None]
    wins, ties = counted.count("win"), counted.count("tie")
    n = len(counted)
    score = wins + ties / 2
    lo, hi = wilson(score, n)
    return {"cases": n, "wins": wins, "ties": ties, "losses": counted.count("loss"),
            "win_rate": round(score / n, 4) if n else None,
            "ci95": [round(lo, 4), round(hi, 4)]}


def describe(totals: dict[str, Any]) -> str:
    """``1 win, 2 ties, 0 losses: win rate 67% (95% CI 21%-94%)``."""
    if not totals.get("cases"):
        return "no case ran on both sides"
    lo, hi = totals["ci95"]
    return (f"{plural(totals['wins'], 'win')}, {plural(totals['ties'], 'tie')}, "
            f"{plural(totals['losses'], 'loss')}: win rate "
            f"{totals['win_rate']:.0%} (95% CI {lo:.0%}-{hi:.0%})")


__all__ = ["OUTCOMES", "check_score", "describe", "outcome", "summary"]
