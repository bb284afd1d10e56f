"""Budgets: usage is added up live per node and per run, reaching a limit pauses the run
with ``run.budget_exceeded`` and stops the spending turn, and a raised limit lets it go on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from desktop.runtime.recovery import create_run, resume_engine
from tests.runtime.engine_helpers import events_of, of_type, workflow

# 1 % of the budget per usage event, ten a second: the turn is stopped within 5 % when
# the engine ends it within about 0.4 s of the crossing event, with room for a loaded
# machine (events still in the pipe were spent and count).
SPEND = {"usage": {"inputTokens": 30, "outputTokens": 10, "costUsd": 0.01,
                   "repeat": 0, "everySec": 0.1}}
QUIET = {"usage": {"inputTokens": 30, "outputTokens": 10, "repeat": 0, "everySec": 0.1}}


async def _run_until_paused(engine: Any) -> str:
    try:
        return str(await asyncio.wait_for(engine.run(exit_on_pause=True), 60))
    finally:
        engine.close()


def _tokens(usage: dict[str, float]) -> float:
    return usage.get("inputTokens", 0) + usage.get("outputTokens", 0)


async def test_a_run_budget_of_tokens_pauses_within_five_percent(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [SPEND]}}, budget={"maxTokens": 4000})
    engine = create_run(doc, tmp_path)
    assert await _run_until_paused(engine) == "paused"
    state = engine.state
    [exceeded] = of_type(events_of(engine.run_dir), "run.budget_exceeded")
    assert exceeded["limit"] == "maxTokens" and "nodeId" not in exceeded
    assert exceeded["used"] >= 4000
    assert 4000 <= _tokens(state.usage) <= 4000 * 1.05
    assert state.budget_exceeded["limit"] == "maxTokens"
    a = engine.find_node("a")
    assert of_type(events_of(engine.run_dir), "turn.status", status="cancelled", nodeId=a)
    assert state.inboxes[a], "the stopped turn's input waits for the resume"


async def test_a_cost_budget_pauses_within_five_percent(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [SPEND]}}, budget={"maxCostUsd": 1.0})
    engine = create_run(doc, tmp_path)
    assert await _run_until_paused(engine) == "paused"
    assert 1.0 <= engine.state.usage["costUsd"] <= 1.05
    [exceeded] = of_type(events_of(engine.run_dir), "run.budget_exceeded")
    assert exceeded["limit"] == "maxCostUsd"


async def test_raising_the_limit_and_resuming_goes_on_and_totals_survive_a_reopen(
        tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [SPEND]}}, budget={"maxTokens": 2000})
    engine = create_run(doc, tmp_path)
    assert await _run_until_paused(engine) == "paused"
    spent = _tokens(engine.state.usage)
    by_node = dict(engine.state.node_usage[engine.find_node("a")])

    # a new engine on the same folder finds the same totals in the log's fold
    engine = resume_engine(engine.run_dir)
    assert _tokens(engine.state.usage) == spent
    assert engine.state.node_usage[engine.find_node("a")] == by_node
    engine.resume_run()
    assert await _run_until_paused(engine) == "paused", "same limit: paused again"
    assert _tokens(engine.state.usage) == spent, "no turn started over the limit"

    engine = resume_engine(engine.run_dir)
    engine.set_budget(None, {"maxTokens": 4000})
    assert engine.state.budget.max_tokens == 4000
    engine.resume_run()
    assert engine.state.budget_exceeded is None
    assert await _run_until_paused(engine) == "paused"
    assert 4000 <= _tokens(engine.state.usage) <= 4000 * 1.05, "it went on to the new limit"
    assert [e["budget"] for e in of_type(events_of(engine.run_dir), "run.budget_exceeded")] \
        == [2000, 2000, 4000]


async def test_a_node_budget_stops_only_that_node(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"say": "go"}]},
                    "spender": {"script": [SPEND], "budget": {"maxTokens": 2000}},
                    "worker": {"script": [{"usage": {"inputTokens": 7}}, {"sleep": 1},
                                          {"say": "finished"}]}},
                   [{"from": "a", "to": "spender"}, {"from": "a", "to": "worker"}])
    engine = create_run(doc, tmp_path)
    assert await _run_until_paused(engine) == "paused"
    events = events_of(engine.run_dir)
    spender, worker = engine.find_node("spender"), engine.find_node("worker")
    [exceeded] = of_type(events, "run.budget_exceeded")
    assert exceeded["nodeId"] == spender
    assert of_type(events, "turn.status", status="cancelled", nodeId=spender)
    assert of_type(events, "turn.status", status="completed", nodeId=worker), \
        "the other node's turn was not stopped"
    assert not of_type(events, "turn.status", status="cancelled", nodeId=worker)
    assert 2000 <= _tokens(engine.state.node_usage[spender]) <= 2100
    assert engine.state.node_usage[worker]["inputTokens"] == 7


async def test_no_cost_reported_leaves_the_cost_unknown(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [QUIET]}}, budget={"maxTokens": 400, "maxCostUsd": 1})
    engine = create_run(doc, tmp_path)
    assert await _run_until_paused(engine) == "paused"
    assert "costUsd" not in engine.state.usage
    assert "costUsd" not in engine.state.node_usage[engine.find_node("a")]
    [exceeded] = of_type(events_of(engine.run_dir), "run.budget_exceeded")
    assert exceeded["limit"] == "maxTokens"


async def test_wall_time_budget_pauses_a_turn_that_runs_too_long(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"hang": True}], "budget": {"maxWallSec": 0.5}}})
    engine = create_run(doc, tmp_path)
    assert await _run_until_paused(engine) == "paused"
    [exceeded] = of_type(events_of(engine.run_dir), "run.budget_exceeded")
    assert exceeded["limit"] == "maxWallSec" and exceeded["used"] >= 0.5
    assert engine.state.node_usage[engine.find_node("a")]["wallSec"] >= 0.5


async def test_set_budget_command_changes_only_the_limits_given(tmp_path: Path) -> None:
    import pytest

    from desktop.runtime.control import Invalid, NotFound, SetBudget, execute

    doc = workflow({"a": {"script": [{"say": "hi"}],
                          "budget": {"maxTokens": 10, "maxCostUsd": 1}}},
                   budget={"maxWallSec": 60})
    engine = create_run(doc, tmp_path, mode="INTERACTIVE")
    try:
        with pytest.raises(Invalid, match="at least one limit"):
            await execute(engine, SetBudget("a"))
        with pytest.raises(NotFound):
            await execute(engine, SetBudget("nobody", max_tokens=5))
        outcome = await execute(engine, SetBudget("a", max_tokens=500))
        assert outcome.node_id == engine.find_node("a")
        await execute(engine, SetBudget(max_cost_usd=3.0))
        node_budget = engine.state.node_configs[engine.find_node("a")].budget
        assert (node_budget.max_tokens, node_budget.max_cost_usd) == (500, 1)
        run_budget = engine.state.budget
        assert (run_budget.max_wall_sec, run_budget.max_cost_usd) == (60, 3.0)
    finally:
        engine.close()


async def test_a_resume_without_a_raise_pauses_once_though_the_watchdog_looks_again(
        tmp_path: Path) -> None:
    """A live engine (the service's) resumed with the limit unchanged pauses again with one
    ``run.budget_exceeded``: the watchdog's next look must not write it a second time."""
    from desktop.runtime import budget

    doc = workflow({"a": {"script": [SPEND]}}, budget={"maxTokens": 2000})
    engine = create_run(doc, tmp_path)
    assert await _run_until_paused(engine) == "paused"
    engine = resume_engine(engine.run_dir)
    engine.resume_run()
    running = asyncio.ensure_future(engine.run())
    try:
        for _ in range(600):
            if len(of_type(events_of(engine.run_dir), "run.budget_exceeded")) == 2:
                break
            await asyncio.sleep(0.05)
        assert engine.state.status == "paused"
        # the watchdog's tick, as it comes every watch interval while the run waits
        engine._check_budget(set(budget.with_nodes(engine.recorder.state_dict or {})))
        engine.recorder.flush()
        assert len(of_type(events_of(engine.run_dir), "run.budget_exceeded")) == 2
    finally:
        engine.halt()
        await asyncio.wait_for(running, 30)
        engine.close()
