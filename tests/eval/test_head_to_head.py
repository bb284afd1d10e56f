"""Head to head: a case is won on pass rate, then on the share of checks passed; the win
rate counts a tie as half and comes with its Wilson interval."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from desktop.eval.head_to_head import check_score, describe, outcome, summary


def side(passes: int, samples: int, checks: list[tuple[int, int]] = ()) -> dict[str, Any]:
    return {"passes": passes, "samples": samples,
            "checks": [{"passes": p, "samples": n} for p, n in checks]}


def test_the_higher_pass_rate_wins_whatever_the_checks_say() -> None:
    assert outcome(side(1, 2, [(1, 2), (2, 2)]), side(2, 2, [(2, 2), (2, 2)])) == "win"
    assert outcome(side(2, 2, [(2, 2)]), side(1, 2, [(1, 2), (2, 2), (2, 2)])) == "loss"


def test_at_equal_pass_rates_more_checks_passed_wins_and_else_it_is_a_tie() -> None:
    failing_more = side(0, 1, [(0, 1), (0, 1)])
    failing_less = side(0, 1, [(1, 1), (0, 1)])
    assert check_score(failing_less) == 0.5
    assert outcome(failing_more, failing_less) == "win"
    assert outcome(failing_less, failing_more) == "loss"
    assert outcome(failing_less, failing_less) == "tie"


def test_a_side_without_a_sample_is_not_counted() -> None:
    assert outcome(side(0, 0), side(1, 1)) is None
    assert summary([None, "win"])["cases"] == 1
    assert summary([None])["win_rate"] is None
    assert describe(summary([])) == "no case ran on both sides"


def test_a_tie_is_half_a_win() -> None:
    totals = summary(["win", "tie", "tie"])
    assert (totals["wins"], totals["ties"], totals["losses"]) == (1, 2, 0)
    assert totals["win_rate"] == round(2 / 3, 4)
    assert describe(totals) == "1 win, 2 ties, 0 losses: win rate 67% (95% CI 21%-94%)"


outcomes = st.lists(st.sampled_from(["win", "tie", "loss", None]), max_size=40)
MIRROR = {"win": "loss", "loss": "win", "tie": "tie", None: None}


@given(outcomes)
def test_the_interval_holds_the_rate_and_swapping_the_sides_mirrors_it(
        seen: list[str | None]) -> None:
    totals = summary(seen)
    if totals["win_rate"] is None:
        return
    lo, hi = totals["ci95"]
    assert lo <= totals["win_rate"] <= hi
    mirrored = summary([MIRROR[o] for o in seen])
    assert abs(mirrored["win_rate"] - (1 - totals["win_rate"])) < 1e-3
    assert abs(mirrored["ci95"][0] - (1 - hi)) < 1e-3
