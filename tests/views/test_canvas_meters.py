"""The canvas's budget meters, redone per update for the nodes the folded batches touched
only, read exactly what a recount of every node reads; a running turn under a time limit
still counts its time, without new events."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from storekit import NODE_A, NODE_B, NODE_C, ev, node, random_event

from desktop.views.budget_meter import node_meter, ticking
from desktop.views.canvas_meters import CanvasMeters
from desktop.views.state import KEPT_BATCHES, RunProjection

NODE_D = "dddddddd-0000-4000-8000-000000000005"  # not in run.created: patched in later
IDS = [NODE_A, NODE_B, NODE_C, NODE_D]
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def timed(kind: str, t: float, **fields) -> dict:
    return {**ev(kind, **fields), "ts": at(t)}


budget = st.fixed_dictionaries({}, optional={
    "maxTokens": st.integers(1, 5000), "maxCostUsd": st.floats(0.01, 5),
    "maxWallSec": st.integers(1, 600)})
node_id = st.sampled_from(IDS)


def created(budgets: dict[str, dict]) -> dict:
    nodes = {n: node(n, label) for n, label in zip(IDS[:3], "ABC", strict=True)}
    return timed("run.created", 0, workflowName="demo", task="go", nodes=nodes,
                 nodeConfigs={n: ({"budget": budgets[n]} if n in budgets else {})
                              for n in nodes})


def event(t: float) -> st.SearchStrategy[dict]:
    """One event at time ``t``: those that move a meter, often, and anything else."""
    return st.one_of(
        st.builds(lambda n, i, o, c: timed("telemetry.usage", t, nodeId=n, inputTokens=i,
                                           outputTokens=o, **({} if c is None else
                                                              {"costUsd": c})),
                  node_id | st.none(), st.integers(0, 3000), st.integers(0, 500),
                  st.none() | st.floats(0, 3)),
        st.builds(lambda n, s: timed("turn.status", t, nodeId=n, status=s, turnId="t",
                                     inboxItemIds=[]),
                  node_id, st.sampled_from(["started", "completed", "failed", "cancelled"])),
        st.builds(lambda n, b: timed("node.patch", t, nodeId=n, patch={"label": "x"},
                                     config={"budget": b}), node_id, budget),
        st.builds(lambda n: timed("node.deleted", t, nodeId=n), node_id),
        st.builds(lambda k: timed(k, t), st.sampled_from(
            ["run.started", "run.paused", "run.resumed", "run.stopped", "run.interrupted"])),
        st.builds(lambda n, lim: timed("run.budget_exceeded", t, limit=lim, budget=1, used=2,
                                       **({} if n is None else {"nodeId": n})),
                  node_id | st.none(), st.sampled_from(["maxTokens", "maxWallSec"])),
        st.builds(lambda p: timed("run.patch", t, patch=p), st.sampled_from([
            {"status": "paused"}, {"nodeUsage": {NODE_B: {"inputTokens": 9000.0}}},
            {"budgetExceeded": {"limit": "maxTokens", "nodeId": NODE_C}}])),
        st.builds(lambda k, n: timed(k, t, nodeId=n, text="x"),
                  st.sampled_from(["message.assistant.delta", "node.heartbeat"]), node_id),
        random_event.map(lambda e: {**e, "ts": at(t)}),
    )


@st.composite
def runs(draw) -> tuple[list[list[dict]], list[datetime]]:
    """Batches of events (the first holds run.created), and the clock at each update."""
    budgets = draw(st.dictionaries(st.sampled_from(IDS[:3]), budget, max_size=3))
    t, seq, batches, clocks = 0.0, 1, [], []
    first = [{**created(budgets), "seq": 1}]
    for _ in range(draw(st.integers(1, 8))):
        batch = first
        first = []
        for _ in range(draw(st.integers(0, 6))):
            t += draw(st.sampled_from([0.0, 0.2, 5.0, 90.0]))
            seq += 1
            batch.append({**draw(event(t)), "seq": seq})
        batches.append(batch)
        t += draw(st.sampled_from([0.0, 0.3, 1.0, 40.0]))
        clocks.append(T0 + timedelta(seconds=t))
    return batches, clocks


def every_meter(state: dict, now: datetime) -> dict:
    return {n: node_meter(state, n, now) for n in state["nodes"]}


@settings(max_examples=150, deadline=None)
@given(runs())
def test_meters_redone_for_the_touched_nodes_equal_a_recount_of_every_node(run):
    batches, clocks = run
    projection, meters = RunProjection(), CanvasMeters(step=timedelta(0))
    for batch, now in zip(batches, clocks, strict=True):
        projection.apply(batch)
        meters.update(projection.state, projection, now)
        assert meters.meters == every_meter(projection.state, now)


@settings(max_examples=60, deadline=None)
@given(runs())
def test_between_clock_steps_only_the_time_limited_meters_wait_for_the_clock(run):
    """With the canvas's step, an update leaves a running turn under a time limit at its
    last count; every other meter is exact, and the clock's recount makes them all so."""
    batches, clocks = run
    projection, meters = RunProjection(), CanvasMeters()
    for batch, now in zip(batches, clocks, strict=True):
        projection.apply(batch)
        meters.update(projection.state, projection, now)
        expected = every_meter(projection.state, now)
        waiting = set(ticking(projection.state))
        assert {n: m for n, m in meters.meters.items() if n not in waiting} == \
            {n: m for n, m in expected.items() if n not in waiting}
        meters.tick(projection.state, now)
        assert meters.meters == expected


def timed_run() -> RunProjection:
    """Node A runs a turn since T0 against ten minutes; node B has spent 200 of 1000
    tokens and is idle."""
    projection = RunProjection()
    projection.apply([{**created({NODE_A: {"maxWallSec": 600},
                                  NODE_B: {"maxTokens": 1000}}), "seq": 1},
                      {**timed("turn.status", 0, nodeId=NODE_A, status="started",
                               turnId="t", inboxItemIds=[]), "seq": 2},
                      {**timed("telemetry.usage", 0, nodeId=NODE_B, inputTokens=200),
                       "seq": 3}])
    return projection


def test_a_running_turns_meter_moves_with_the_clock_without_new_events():
    projection, meters = timed_run(), CanvasMeters()
    meters.update(projection.state, projection, T0 + timedelta(seconds=60))
    assert meters.meters[NODE_A].percent == 10
    # a frame a moment later with nothing new: nothing is recounted
    assert meters.update(projection.state, projection, T0 + timedelta(seconds=60.5)) == set()
    # the canvas's clock recounts the time-limited meter
    assert meters.tick(projection.state, T0 + timedelta(seconds=300)) == [NODE_A]
    assert meters.meters[NODE_A].percent == 50 and meters.meters[NODE_B].percent == 20
    # a frame a step later recounts it too, even when the clock's tick did not come
    assert meters.update(projection.state, projection,
                         T0 + timedelta(seconds=420)) == {NODE_A}
    assert meters.meters[NODE_A].percent == 70 and meters.meters[NODE_A].level == "ok"
    assert meters.update(projection.state, projection,
                         T0 + timedelta(seconds=510)) == {NODE_A}
    assert meters.meters[NODE_A].level == "near"


def test_an_update_redoes_only_the_nodes_the_batch_touched():
    projection, meters = timed_run(), CanvasMeters()
    now = T0 + timedelta(seconds=1)
    assert meters.update(projection.state, projection, now) == {NODE_A, NODE_B, NODE_C}
    before = dict(meters.meters)
    projection.apply([{**timed("node.heartbeat", 1, nodeId=NODE_A), "seq": 4},
                      {**timed("telemetry.usage", 1, nodeId=NODE_B, inputTokens=700),
                       "seq": 5}])
    assert meters.update(projection.state, projection, now) == {NODE_B}
    assert meters.meters[NODE_B].percent == 90
    assert meters.meters[NODE_A] is before[NODE_A] and meters.meters[NODE_C] is None


def test_a_state_the_projection_cannot_vouch_for_is_recounted_whole():
    projection, meters = timed_run(), CanvasMeters()
    now = T0 + timedelta(seconds=1)
    meters.update(projection.state, projection, now)
    replayed = {**projection.state}  # a replayed moment: another dict
    assert meters.update(replayed, projection, now) == {NODE_A, NODE_B, NODE_C}
    meters.update(projection.state, projection, now)
    for seq in range(10, 10 + KEPT_BATCHES + 1):  # more batches than are kept
        projection.apply([{**timed("telemetry.usage", 1, nodeId=NODE_C, inputTokens=1),
                           "seq": seq}])
    assert meters.update(projection.state, projection, now) == {NODE_A, NODE_B, NODE_C}
    projection.reset(projection.state)
    assert projection.touched_since(projection.mark - 1) is None
    assert meters.update(projection.state, projection, now) == {NODE_A, NODE_B, NODE_C}
    assert meters.meters == every_meter(projection.state, now)


def test_the_projection_says_which_nodes_a_batch_touched():
    projection = timed_run()
    mark = projection.mark
    projection.apply([{**timed("message.assistant.delta", 2, nodeId=NODE_A, text="x"),
                       "seq": 4}])
    assert projection.touched_since(mark) == set(), "streaming moves no meter"
    projection.apply([{**timed("run.budget_exceeded", 3, limit="maxTokens", nodeId=NODE_B,
                                budget=1, used=2), "seq": 5}])
    assert projection.touched_since(mark) == {NODE_B}
    later = projection.mark
    projection.apply([{**timed("run.resumed", 4), "seq": 6}])
    assert projection.touched_since(later) == {NODE_B}, "its card's meter leaves red"
    assert projection.touched_since(mark) == {NODE_B}
    later = projection.mark
    projection.apply([{**timed("run.patch", 5, patch={"nodeUsage": {}}), "seq": 7}])
    assert projection.touched_since(later) == {NODE_A, NODE_B, NODE_C}, "a state made anew"
