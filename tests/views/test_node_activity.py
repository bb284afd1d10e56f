"""Node activity: what the canvas and the CLI show per node, from the run's events."""

from storekit import NODE_A, NODE_B, created, ev

from desktop.views.activity import AWAITING, RecentActivity, node_activity
from desktop.views.state import RunProjection

TOOL = {"id": "t1", "name": "command", "args": {"cmd": "pytest -q"}}


def _run(*events: dict) -> tuple[RunProjection, RecentActivity]:
    numbered = [{**e, "seq": i} for i, e in enumerate([created(), *events], start=1)]
    projection, recent = RunProjection(), RecentActivity()
    for event in numbered:  # one batch per event, as a live view receives them at worst
        projection.apply([event])
        recent([event])
    return projection, recent


def test_a_gated_call_marks_only_its_node_as_awaiting_until_resolved():
    started = ev("turn.status", nodeId=NODE_A, status="started", turnId="t", inboxItemIds=[])
    asked = ev("approval.requested", nodeId=NODE_A, approvalId="ap", tool=TOOL)
    projection, recent = _run(started, ev("tool.proposed", nodeId=NODE_A, tool=TOOL), asked)
    nodes = node_activity(projection.state, recent)
    assert nodes[NODE_A].awaiting and nodes[NODE_A].shown_status == AWAITING
    assert nodes[NODE_A].status == "running" and nodes[NODE_A].last_activity == asked["ts"]
    assert nodes[NODE_A].doing == "command: $ pytest -q"
    assert not nodes[NODE_B].awaiting and nodes[NODE_B].shown_status == "idle"
    projection.apply([{**ev("approval.resolved", nodeId=NODE_A, approvalId="ap",
                            resolution={"status": "approved"}), "seq": 5}])
    assert node_activity(projection.state)[NODE_A].shown_status == "running"


def test_summary_turns_inbox_and_the_latest_action():
    projection, recent = _run(
        ev("inbox.queued", nodeId=NODE_B, item={"id": "i1", "kind": "task", "text": "x"}),
        ev("turn.status", nodeId=NODE_A, status="started", turnId="t", inboxItemIds=[]),
        ev("message.assistant.final", nodeId=NODE_A, text="Plan ready\nsteps"),
        ev("turn.status", nodeId=NODE_A, status="completed", turnId="t"),
        ev("turn.status", nodeId=NODE_B, status="started", turnId="u", inboxItemIds=["i1"]),
        ev("turn.status", nodeId=NODE_B, status="failed", turnId="u", reason="exit 3",
           inputKept=True))
    a, b = node_activity(projection.state, recent).values()
    assert (a.label, a.status, a.summary, a.turns, a.inbox) == ("A", "idle", "Plan ready", 1, 0)
    assert a.doing == "Plan ready"  # a completed turn: the summary says it best
    # the failed turn's input waits for a resume to take it again
    assert (b.status, b.summary, b.inbox, b.doing) == ("failed", "exit 3", 1, "turn failed: exit 3")


def test_no_state_no_nodes():
    assert node_activity(None) == {}


def test_a_node_blocked_by_a_stall_shows_stopped_once_the_run_is_stopped():
    stalled = ev("run.stalled", nodeId=NODE_A, reason="repeated output",
                 evidence={"outputs": ["same", "same"]})
    projection, _recent = _run(
        ev("turn.status", nodeId=NODE_A, status="started", turnId="t", inboxItemIds=[]),
        ev("turn.status", nodeId=NODE_A, status="completed", turnId="t"), stalled)
    assert node_activity(projection.state)[NODE_A].shown_status == "blocked"
    projection.apply([{**ev("run.stopped"), "seq": 5}])
    a = node_activity(projection.state)[NODE_A]
    assert (a.status, a.shown_status) == ("blocked", "stopped")
