"""The reducer: the semantics the runtime relies on, purity, totality, determinism."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from storekit import (
    EDGE_AB,
    NODE_A,
    NODE_B,
    NODE_C,
    RUN_ID,
    anything,
    created,
    ev,
    item,
    logs,
    story,
)

from desktop.contract.events import RunStarted
from desktop.store.reducer import fold, fold_events


def test_story_semantics():
    s = fold_events(story())
    assert s.id == RUN_ID and s.status == "running" and s.workflow_name == "demo"
    assert [i.id for i in s.inboxes[NODE_A]] == ["i2"]
    assert s.turns == {NODE_A: 1} and s.last_agent_run == {NODE_A: "ar1"}
    assert s.nodes[NODE_A].status == "idle" and s.nodes[NODE_A].summary == "Plan ready"
    assert s.nodes[NODE_B].summary == "working"
    # B's question is open and no turn runs: the run's clock stopped, its time so far kept
    assert s.usage.pop("wallSec") > 0 and s.running_since is None
    assert s.usage == {"inputTokens": 10, "outputTokens": 5, "costUsd": 0.01}
    assert list(s.pending_approvals) == ["ap1"]
    assert s.last_seq == 0  # events without seq leave lastSeq alone
    assert s.nodes[NODE_A].last_activity_at is not None


def test_every_known_event_sets_updated_and_seq_unknown_does_not():
    base = fold(None, {**created(), "seq": 1})
    after = fold(base, {**ev("node.heartbeat", nodeId=NODE_A), "ts": "2026-02-02T00:00:00Z",
                        "seq": 2})
    assert after.updated_at == "2026-02-02T00:00:00Z" and after.last_seq == 2
    assert after.nodes[NODE_A].last_activity_at == "2026-02-02T00:00:00Z"
    unknown = fold(after, {**ev("brand.new", nodeId=NODE_A), "seq": 3})
    assert unknown == after


def test_status_transitions_and_stall():
    s = fold_events([created(), ev("run.stalled", reason="output", nodeId=NODE_A,
                                    evidence={"hash": "x"})])
    assert s.status == "paused" and s.stall == {"reason": "output", "evidence": {"hash": "x"},
                                                 "nodeId": NODE_A}
    assert s.nodes[NODE_A].status == "blocked" and s.nodes[NODE_A].summary == "stalled"
    s = fold(s, ev("run.interrupted"))
    assert s.interrupted
    s = fold(s, ev("run.resumed"))
    assert s.status == "running" and not s.interrupted and s.stall is None
    for kind, status in [("run.paused", "paused"), ("run.stopped", "stopped"),
                         ("run.completed", "completed"), ("run.failed", "failed")]:
        assert fold(s, ev(kind)).status == status
    s = fold(s, ev("run.mode", mode="INTERACTIVE", globalMode="PLANNING"))
    assert (s.mode, s.global_mode) == ("INTERACTIVE", "PLANNING")
    s = fold(s, ev("run.patch", patch={"task": "new task"}))
    assert s.task == "new task"


def test_node_patch_creates_merges_and_configs():
    s = fold_events([created(), ev("node.patch", nodeId=NODE_C,
                                    patch={"label": "C", "capabilities": {"writeCode": False}},
                                    config={"limits": {"retries": 2}})])
    assert s.nodes[NODE_C].label == "C" and s.nodes[NODE_C].run_id == RUN_ID
    assert s.node_configs[NODE_C].limits.retries == 2
    s = fold(s, ev("node.patch", nodeId=NODE_C, patch={"capabilities": {"writeDocs": False}},
                   config={"limits": {"timeoutSec": 5}}))
    caps = s.nodes[NODE_C].capabilities
    assert caps.write_code is False and caps.write_docs is False
    assert s.node_configs[NODE_C].limits.retries == 2
    assert s.node_configs[NODE_C].limits.timeout_sec == 5
    bad = fold(s, ev("node.patch", nodeId=NODE_C, patch={"status": "bogus"}))
    assert bad.nodes[NODE_C] == s.nodes[NODE_C]  # a patch that does not fit is ignored


def test_node_deleted_drops_everything_about_it():
    s = fold_events([created(), ev("inbox.queued", nodeId=NODE_B, item=item("x")),
                     ev("node.deleted", nodeId=NODE_B)])
    assert NODE_B not in s.nodes and NODE_B not in s.node_configs
    assert NODE_B not in s.inboxes and EDGE_AB not in s.edges


@pytest.mark.parametrize("end", ["cancelled", "interrupted"])
def test_turn_cancelled_puts_items_back_first(end):
    s = fold_events([
        created(),
        ev("inbox.queued", nodeId=NODE_A, item=item("i1")),
        ev("inbox.queued", nodeId=NODE_A, item=item("i2")),
        ev("turn.status", nodeId=NODE_A, status="started", turnId="t", inboxItemIds=["i1"]),
        ev("inbox.queued", nodeId=NODE_A, item=item("i3")),
    ])
    assert s.nodes[NODE_A].status == "running"
    assert [i["id"] for i in s.running_turns[NODE_A]["items"]] == ["i1"]
    s = fold(s, ev("turn.status", nodeId=NODE_A, status="started", turnId="t", attempt=2))
    assert [i["id"] for i in s.running_turns[NODE_A]["items"]] == ["i1"]
    s = fold(s, ev("turn.status", nodeId=NODE_A, status=end, turnId="t"))
    assert NODE_A not in s.running_turns and s.nodes[NODE_A].status == "idle"
    inbox = [i.to_json_dict() for i in s.inboxes[NODE_A]]
    assert [i["id"] for i in inbox] == ["i1", "i2", "i3"]
    assert inbox[0]["restart"] is True and "restart" not in inbox[1]


@pytest.mark.parametrize("kept", [True, False])
def test_a_failed_turn_keeps_its_input_for_a_resume_when_its_event_says_so(kept):
    """A run recorded before ``inputKept`` dropped a failed turn's input; its log folds
    as it was recorded (``agent-canvas replay`` still finds state.json the same)."""
    more = {"inputKept": True} if kept else {}
    s = fold_events([
        created(),
        ev("inbox.queued", nodeId=NODE_A, item=item("i1")),
        ev("turn.status", nodeId=NODE_A, status="started", turnId="t", inboxItemIds=["i1"]),
        ev("inbox.queued", nodeId=NODE_A, item=item("i2")),
        ev("turn.status", nodeId=NODE_A, status="failed", turnId="t", reason="exit 3", **more),
    ])
    assert s.nodes[NODE_A].status == "failed" and NODE_A not in s.running_turns
    inbox = [i.to_json_dict() for i in s.inboxes[NODE_A]]
    assert [i["id"] for i in inbox] == (["i1", "i2"] if kept else ["i2"])
    assert inbox[0].get("restart") is (True if kept else None)


def test_turn_failed_and_edges_and_approvals_and_artifacts():
    s = fold_events([
        created(),
        ev("turn.status", nodeId=NODE_A, status="started", turnId="t"),
        ev("turn.status", nodeId=NODE_A, status="failed", turnId="t", reason="exit 3"),
        ev("edge.created", edge={"id": EDGE_AB.replace("e", "f"), "from": NODE_B, "to": NODE_A,
                                 "type": "report", "label": "report"}),
        ev("edge.deleted", edgeId=EDGE_AB),
        ev("approval.requested", approvalId="a", tool={"id": "1", "name": "x"}),
        ev("approval.resolved", approvalId="a", resolution={"status": "approved"}),
        ev("artifact.created", artifact={"id": NODE_C, "runId": RUN_ID, "kind": "diff",
                                         "name": "diff.patch", "path": "agents/x/diff.patch",
                                         "createdAt": "2026-01-01T00:00:00Z"}),
    ])
    assert s.nodes[NODE_A].status == "failed" and s.nodes[NODE_A].summary == "exit 3"
    assert list(s.edges) == [EDGE_AB.replace("e", "f")]
    assert s.pending_approvals == {}
    assert s.artifacts[NODE_C].path == "agents/x/diff.patch"


def test_fold_accepts_models_and_never_mutates_inputs():
    events = story()
    frozen = copy.deepcopy(events)
    state = fold_events(events)
    before = state.model_copy(deep=True)
    fold(state, ev("node.patch", nodeId=NODE_A, patch={"summary": "changed"}))
    fold(state, RunStarted(runId=RUN_ID))
    assert events == frozen and state == before


def test_no_state_without_a_run():
    with pytest.raises(ValueError):
        fold_events([{"type": "nope"}])
    s = fold(None, ev("node.heartbeat"))  # run.created lost: a bare state, not a crash
    assert s.id == RUN_ID


# --- properties ------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(logs)
def test_fold_is_deterministic_and_total(events):
    assert fold_events(copy.deepcopy(events)) == fold_events(events)


@settings(max_examples=150, deadline=None)
@given(logs, st.data())
def test_snapshot_plus_tail_equals_full_fold(events, data):
    cut = data.draw(st.integers(1, len(events)))
    head = fold_events(events[:cut])
    assert fold_events(events[cut:], head) == fold_events(events)


@settings(max_examples=60, deadline=None)
@given(logs)
def test_single_step_fold_equals_batch_fold(events):
    state = None
    for e in events:
        state = fold(state, e)
    assert state == fold_events(events)


@settings(max_examples=60, deadline=None)
@given(logs, st.text(min_size=1, max_size=8).map(lambda t: f"x.{t}"), anything)
def test_unknown_events_change_nothing(events, kind, payload):
    state = fold_events(events)
    assert fold(state, {**ev(kind, nodeId=NODE_A, data=payload), "seq": 999}) == state
