"""Usage in the fold: per node and per run, cost only when reported, wall time from the
log's own timestamps, and the budget that paused the run."""

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from storekit import NODE_A, NODE_B, created, ev

from desktop.store.reducer import fold_events

usage_events = st.lists(st.fixed_dictionaries(
    {"nodeId": st.sampled_from([NODE_A, NODE_B]),
     "inputTokens": st.integers(0, 10_000), "outputTokens": st.integers(0, 10_000)},
    optional={"costUsd": st.floats(0, 5, allow_nan=False)}), max_size=30)


@given(usage_events)
def test_run_usage_is_the_sum_of_the_nodes_and_cost_is_absent_unless_reported(
        spent: list[dict[str, Any]]) -> None:
    state = fold_events([created()] + [ev("telemetry.usage", **u) for u in spent])
    for key in ("inputTokens", "outputTokens"):
        total = sum(u[key] for u in spent)
        assert state.usage.get(key, 0) == total
        assert sum(n.get(key, 0) for n in state.node_usage.values()) == total
    for node in (NODE_A, NODE_B):
        reported = [u["costUsd"] for u in spent if u["nodeId"] == node and "costUsd" in u]
        if reported:
            assert abs(state.node_usage[node]["costUsd"] - sum(reported)) < 1e-9
        else:
            assert "costUsd" not in state.node_usage.get(node, {}), "unknown is not 0"
    assert ("costUsd" in state.usage) == any("costUsd" in u for u in spent)


def _at(second: int) -> str:
    return f"2026-01-01T00:00:{second:02d}.000Z"


def test_wall_time_counts_running_time_only_and_turn_time_per_node() -> None:
    events = [
        created(), {**ev("run.started"), "ts": _at(0)},
        {**ev("turn.status", nodeId=NODE_A, status="started", inboxItemIds=[]), "ts": _at(1)},
        {**ev("turn.status", nodeId=NODE_A, status="completed"), "ts": _at(5)},
        {**ev("run.paused"), "ts": _at(10)},
        {**ev("run.resumed"), "ts": _at(30)},  # 20 s paused: not counted
        {**ev("run.budget_exceeded", limit="maxWallSec", budget=12, used=12,
              nodeId=None), "ts": _at(32)},
    ]
    state = fold_events(events)
    assert state.usage["wallSec"] == 12
    assert state.node_usage[NODE_A]["wallSec"] == 4
    assert state.status == "paused"
    assert state.budget_exceeded == {"limit": "maxWallSec", "budget": 12, "used": 12}
    resumed = fold_events([*events, {**ev("run.resumed"), "ts": _at(40)}])
    assert resumed.budget_exceeded is None and resumed.status == "running"


def test_a_run_interrupted_counts_wall_time_until_its_last_event() -> None:
    state = fold_events([created(), {**ev("run.started"), "ts": _at(0)},
                         {**ev("node.progress", nodeId=NODE_A, message="x"), "ts": _at(3)},
                         {**ev("run.interrupted"), "ts": _at(50)}])
    assert state.usage["wallSec"] == 3


def test_the_workflow_budget_travels_in_run_created() -> None:
    state = fold_events([created(budget={"maxTokens": 100, "maxCostUsd": 0.5})])
    assert state.budget is not None and state.budget.max_tokens == 100
