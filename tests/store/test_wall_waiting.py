"""Wall time is the time agents work: a turn waiting for a person (an approval, a best-of-N
choice) stops its node's clock, and the run's while every running turn waits. The engine's
budget check and the budget meters read the same clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from storekit import NODE_A, NODE_B, created, ev

from desktop.runtime import budget
from desktop.store.reducer import apply_event
from desktop.store.turn_clock import clock_start
from desktop.views.budget_meter import node_meter, run_meter, ticking

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TOOL = {"id": "t", "name": "command", "args": {"cmd": "ls"}}


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def _fold(events: list[dict[str, Any]]) -> dict[str, Any]:
    state = None
    for event in events:
        state = apply_event(state, event)
    assert state is not None
    return state


def _timed(type_: str, at: float, **fields: Any) -> dict[str, Any]:
    return {**ev(type_, **fields), "ts": _at(at)}


def _gated_turn(work: float, wait: float, after: float) -> list[dict[str, Any]]:
    """A's turn works ``work`` s, waits ``wait`` s for a person, then works ``after`` s."""
    return [
        {**created(budget={"maxWallSec": 10}), "ts": _at(0),
         "nodeConfigs": {NODE_A: {"budget": {"maxWallSec": 10}}, NODE_B: {}}},
        _timed("run.started", 0),
        _timed("turn.status", 0, nodeId=NODE_A, status="started", turnId="t1",
               inboxItemIds=[]),
        _timed("approval.requested", work, nodeId=NODE_A, approvalId="ap1", tool=TOOL),
        _timed("approval.resolved", work + wait, nodeId=NODE_A, approvalId="ap1",
               resolution={"status": "approved", "by": "test"}),
        _timed("turn.status", work + wait + after, nodeId=NODE_A, status="completed",
               turnId="t1"),
    ]


seconds = st.floats(0.0, 500.0, allow_nan=False).map(lambda s: round(s, 3))


@given(seconds, seconds, seconds)
def test_a_turn_waiting_for_a_person_counts_only_its_working_time(
        work: float, wait: float, after: float) -> None:
    events = _gated_turn(work, wait, after)
    state = _fold(events)
    assert abs(state["nodeUsage"][NODE_A]["wallSec"] - (work + after)) < 1e-3
    end = T0 + timedelta(seconds=work + wait + after)
    run_used = budget.figures(state["usage"], state.get("runningSince"), end)["wallSec"]
    assert abs(run_used - (work + after)) < 1e-3
    # while it waits, the engine's check and both meters see the work before the wait,
    # however long the person takes
    waiting = _fold(events[:4])
    late = T0 + timedelta(seconds=work + wait)
    used = budget.figures(waiting["nodeUsage"][NODE_A],
                          clock_start(waiting["runningTurns"][NODE_A]), late)["wallSec"]
    assert abs(used - work) < 1e-3
    over = budget.exceeded(waiting, NODE_A, now=late)
    assert (over is not None) == (work >= 10)
    assert ticking(waiting) == []  # a waiting node's meter stands still
    meter = node_meter(waiting, NODE_A, now=late)
    assert meter is not None and abs((meter.share or 0) - work / 10) < 1e-3
    run = run_meter(waiting, now=late)
    assert run is not None and abs((run.share or 0) - work / 10) < 1e-3


def test_a_best_of_n_turn_with_one_attempt_held_keeps_counting() -> None:
    """Attempts 2 and 3 still work while attempt 1 waits: the node is working; once all
    three are done and the choice waits, its clock stops."""
    base = [
        {**created(), "ts": _at(0),
         "nodeConfigs": {NODE_A: {"budget": {"maxWallSec": 100}}, NODE_B: {}}},
        _timed("run.started", 0),
        _timed("turn.status", 0, nodeId=NODE_A, status="started", turnId="t1",
               inboxItemIds=[]),
        *[_timed("attempt.started", 1, nodeId=NODE_A, turnId="t1", attemptIndex=i,
                 agentRunId=f"r{i}") for i in (1, 2, 3)],
        _timed("approval.requested", 2, nodeId=NODE_A, approvalId="ap1", tool=TOOL),
    ]
    state = _fold(base)
    assert NODE_A in ticking(state)
    late = T0 + timedelta(seconds=50)
    assert abs(budget.figures({}, clock_start(
        state["runningTurns"][NODE_A]), late)["wallSec"] - 50) < 1e-3
    done = [*base, _timed("approval.resolved", 3, nodeId=NODE_A, approvalId="ap1",
                          resolution={"status": "approved", "by": "test"}),
            *[_timed("attempt.completed", 4, nodeId=NODE_A, turnId="t1", attemptIndex=i,
                     summary={"index": i}) for i in (1, 2, 3)],
            {**_timed("approval.requested", 5, nodeId=NODE_A, approvalId="ch1",
                      choice={"turnId": "t1", "attempts": [{"index": 1}]}), "kind": "choice"}]
    choosing = _fold(done)
    assert ticking(choosing) == []
    assert abs(choosing["nodeUsage"][NODE_A]["wallSec"] - 5) < 1e-3
    assert budget.exceeded(choosing, NODE_A, now=T0 + timedelta(seconds=500)) is None


def test_the_run_clock_runs_while_another_node_works() -> None:
    events = [
        {**created(), "ts": _at(0)}, _timed("run.started", 0),
        _timed("turn.status", 0, nodeId=NODE_A, status="started", turnId="t1",
               inboxItemIds=[]),
        _timed("turn.status", 0, nodeId=NODE_B, status="started", turnId="t2",
               inboxItemIds=[]),
        _timed("approval.requested", 1, nodeId=NODE_A, approvalId="ap1", tool=TOOL),
    ]
    state = _fold(events)
    assert "runningSince" in state  # B works: the run's time goes on
    both = _fold([*events, _timed("approval.requested", 4, nodeId=NODE_B, approvalId="ap2",
                                  tool=TOOL)])
    assert "runningSince" not in both and abs(both["usage"]["wallSec"] - 4) < 1e-3
    on = _fold([*events, _timed("approval.requested", 4, nodeId=NODE_B, approvalId="ap2",
                                tool=TOOL),
                _timed("approval.resolved", 9, nodeId=NODE_B, approvalId="ap2",
                       resolution={"status": "approved", "by": "test"})])
    assert on["runningSince"] == _at(9)


def test_the_run_clock_stops_for_a_merge_asked_before_any_turn() -> None:
    merge = {"source": "canvas/1/b", "target": "canvas/1/a", "commit": "c0ffee",
             "worktree": "/tmp/w", "files": []}
    asked = _fold([{**created(), "ts": _at(0)}, _timed("run.started", 0),
                   {**_timed("approval.requested", 3, nodeId=NODE_A, approvalId="m1",
                             merge=merge), "kind": "merge"}])
    assert "m1" in asked["pendingApprovals"], "the merge request folds"
    assert "runningSince" not in asked and abs(asked["usage"]["wallSec"] - 3) < 1e-3
