"""The budget meter's words and level, from a run's folded usage and budgets: a cost no
provider reported never reads as $0, and more usage never calms the meter."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.budget_meter import (
    LEVELS,
    NEAR_LIMIT,
    OK,
    OVER,
    Overrun,
    meter,
    node_meter,
    overrun,
    run_meter,
    ticking,
)

TOKENS = st.integers(min_value=0, max_value=10**9)
COST = st.none() | st.floats(min_value=0, max_value=10**4, allow_nan=False)
LIMIT = st.floats(min_value=1e-3, max_value=1e9, allow_nan=False)
BUDGET = st.fixed_dictionaries({}, optional={"maxTokens": st.integers(1, 10**9),
                                              "maxCostUsd": LIMIT})


def usage(tokens: int, cost: float | None) -> dict:
    found: dict = {"inputTokens": tokens // 2, "outputTokens": tokens - tokens // 2}
    if cost is not None:
        found["costUsd"] = cost
    return found


@given(TOKENS, COST, BUDGET)
def test_an_unreported_cost_reads_unknown_and_a_known_one_never_hides(tokens, cost, budget):
    shown = meter(usage(tokens, cost), budget).text
    if cost is None:
        assert "cost unknown" in shown and "$" not in shown
    else:
        assert "unknown" not in shown and "$" in shown
        if cost > 0:
            assert "$0.00 " not in f"{shown} " and "$0.0000" not in shown


@given(TOKENS, TOKENS, COST, st.floats(0, 10**4, allow_nan=False), BUDGET)
def test_the_level_never_falls_as_usage_grows(a, b, cost, more_cost, budget):
    low, high = sorted((a, b))
    before = meter(usage(low, cost), budget)
    after = meter(usage(high, None if cost is None else cost + more_cost), budget)
    assert LEVELS.index(after.level) >= LEVELS.index(before.level)


@given(st.integers(1, 10**6), st.floats(0, 2, allow_nan=False))
def test_amber_from_eighty_percent_red_from_the_limit(limit, share):
    tokens = int(limit * share)
    found = meter(usage(tokens, None), {"maxTokens": limit})
    expected = OVER if tokens >= limit else NEAR_LIMIT if tokens >= 0.8 * limit else OK
    assert found.level == expected
    assert found.text.endswith(f"{found.percent}%")
    assert (found.percent >= 100) == (tokens >= limit)


def test_without_a_budget_the_meter_says_usage_only() -> None:
    found = meter(usage(12_300, 0.04), None)
    assert found.text == "12.3k tok · $0.04"
    assert found.level == OK and found.share is None and found.budget_text == ""


def test_node_and_run_meters_come_from_the_fold() -> None:
    state = {"status": "paused", "usage": usage(5000, None), "budget": {"maxTokens": 10_000},
             "nodeUsage": {"n1": usage(4100, 0.02)},
             "nodeConfigs": {"n1": {"budget": {"maxTokens": 4000}}, "n2": {}},
             "budgetExceeded": {"nodeId": "n1", "limit": "maxTokens", "budget": 4000,
                                "used": 4100}}
    card = node_meter(state, "n1")
    assert card is not None and card.level == OVER and card.text == "4.1k tok · $0.02 · 102%"
    assert node_meter(state, "n2") is None, "nothing spent, no budget: no meter"
    run = run_meter(state)
    assert run is not None and run.level == OK and run.budget_text == \
        "50% of the tokens budget"
    paused_on = overrun(state)
    assert paused_on is not None and paused_on.node_id == "n1"
    assert paused_on.usage_text == "4,100 tokens of 4,000 tokens"
    assert paused_on.suggested() > 4100
    assert overrun({**state, "status": "running"}) is None


def test_wall_time_alone_shows_no_meter() -> None:
    state = {"status": "completed", "usage": {"wallSec": 3.0},
             "nodeUsage": {"n1": {"wallSec": 2.0}}, "nodeConfigs": {"n1": {}}}
    assert node_meter(state, "n1") is None and run_meter(state) is None
    state["budget"] = {"maxWallSec": 10}
    run = run_meter(state)
    assert run is not None and run.budget_text == "30% of the time budget"


def test_only_running_turns_with_a_time_limit_tick() -> None:
    state = {"runningTurns": {"n1": {}, "n2": {}},
             "nodeConfigs": {"n1": {"budget": {"maxWallSec": 60}},
                             "n2": {"budget": {"maxTokens": 10}},
                             "n3": {"budget": {"maxWallSec": 60}}}}
    assert ticking(state) == ["n1"]


@given(limit=st.sampled_from(["maxTokens", "maxCostUsd", "maxWallSec"]),
       budget=st.floats(0.01, 1e9), over=st.floats(1.0, 50.0),
       turn_share=st.floats(0.0, 1.0))
def test_the_limit_offered_lets_the_stopped_turn_spend_as_much_again(
        limit: str, budget: float, over: float, turn_share: float) -> None:
    used = budget * over
    offered = Overrun("n1", limit, budget, used).suggested()
    again = used + used * turn_share  # resumed: the stopped turn starts over
    assert offered > again and offered >= budget * 2
