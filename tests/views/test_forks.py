"""Fork points of a log, and where a chosen seq snaps to (property tests on drawn logs)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.views.forks import NoForkPoint, scan_events

RUN = "11111111-2222-4333-8444-555555555555"
NODES = ["n1", "n2", "n3"]


@st.composite
def logs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A plausible run: turns of three nodes, some at once, with routing and approvals."""
    events: list[dict[str, Any]] = [
        {"type": "run.created", "runId": RUN, "nodes": {n: {"label": n.upper()} for n in NODES}},
        {"type": "inbox.queued", "nodeId": "n1"}, {"type": "run.started"}]
    running: set[str] = set()
    pending: list[str] = []
    for step in range(draw(st.integers(0, 30))):
        action = draw(st.sampled_from(["start", "end", "chatter", "ask", "answer"]))
        node = draw(st.sampled_from(NODES))
        if action == "start" and node not in running:
            running.add(node)
            events.append({"type": "turn.status", "status": "started", "nodeId": node})
        elif action == "end" and running:
            node = sorted(running)[draw(st.integers(0, len(running) - 1))]
            running.discard(node)
            status = draw(st.sampled_from(["completed", "completed", "failed", "cancelled"]))
            events.append({"type": "turn.status", "status": status, "nodeId": node})
            events.append({"type": "handoff.sent", "nodeId": node})
            events.append({"type": "inbox.queued", "nodeId": draw(st.sampled_from(NODES))})
        elif action == "ask" and running:
            pending.append(f"a{step}")
            events.append({"type": "approval.requested", "approvalId": pending[-1]})
        elif action == "answer" and pending:
            events.append({"type": "approval.resolved", "approvalId": pending.pop(0)})
        else:
            events.append({"type": "message.assistant.delta", "nodeId": node})
    if draw(st.booleans()) and not running and not pending:
        events.append({"type": "run.completed"})
    for seq, event in enumerate(events, start=1):
        event["seq"] = seq
    return events


def _busy_after(events: list[dict[str, Any]]) -> list[bool]:
    """Brute force: after each event, is a turn running or an approval pending?"""
    running: set[str] = set()
    pending: set[str] = set()
    out = []
    for e in events:
        if e["type"] == "turn.status":
            (running.add if e["status"] == "started" else running.discard)(e["nodeId"])
        elif e["type"] == "approval.requested":
            pending.add(e["approvalId"])
        elif e["type"] == "approval.resolved":
            pending.discard(e["approvalId"])
        out.append(bool(running or pending))
    return out


@settings(max_examples=300, deadline=None)
@given(logs(), st.data())
def test_points_are_quiet_moments_before_a_turn_and_a_seq_snaps_to_the_right_one(
        events: list[dict[str, Any]], data: st.DataObject) -> None:
    scan = scan_events(events)
    busy = _busy_after(events)
    by_seq = {e["seq"]: e for e in events}
    assert [scan.busy_at(e["seq"]) for e in events] == busy
    for point in scan.points:
        assert not busy[point.seq - 1]
        following = by_seq.get(point.seq + 1)
        if following is None:
            assert events[-1]["type"] != "run.completed"
        else:
            assert following["type"] == "turn.status" and following["status"] == "started"
            assert point.node_id == following["nodeId"]
            assert point.label == following["nodeId"].upper()
    seq = data.draw(st.integers(1, len(events)))
    try:
        snap = scan.snap(seq)
    except NoForkPoint:
        assert not [p for p in scan.points if p.seq <= seq or not busy[seq - 1]]
        return
    point = snap.point
    assert point in scan.points
    later = [p.seq for p in scan.points if p.seq >= seq]
    if not busy[seq - 1] and later:
        assert point.seq == later[0]
        assert not any(busy[s - 1] for s in range(seq, point.seq + 1))  # nothing ran between
    else:
        assert point.seq == max(p.seq for p in scan.points if p.seq <= seq)
        assert "turn" in snap.note


def test_the_end_of_a_live_run_is_a_point_only_while_it_is_paused() -> None:
    events = [{"type": "run.created", "runId": RUN, "seq": 1},
              {"type": "run.started", "seq": 2},
              {"type": "turn.status", "status": "started", "nodeId": "n1", "seq": 3},
              {"type": "turn.status", "status": "completed", "nodeId": "n1", "seq": 4}]
    assert [p.seq for p in scan_events(events).points] == [2, 4]
    assert [p.seq for p in scan_events(events, live=True).points] == [2]
    paused = [*events, {"type": "run.paused", "seq": 5}]
    assert [p.seq for p in scan_events(paused, live=True).points] == [2, 5]


@given(winner=st.integers(1, 3), order=st.permutations([1, 2, 3]))
def test_a_best_of_n_turn_keeps_only_the_winning_attempts_diff(winner: int,
                                                               order: list[int]) -> None:
    """The attempts' diffs come in any order; after the choice a fork replays only the
    winner's, as the node's own diff."""
    events: list[dict[str, Any]] = [
        {"type": "run.created", "runId": RUN, "nodes": {"n1": {"label": "N1"}}},
        {"type": "turn.status", "status": "started", "nodeId": "n1"}]
    events += [{"type": "artifact.created", "nodeId": "n1", "attemptIndex": i,
                "artifact": {"kind": "diff", "path": f"agents/a{i}/diff.patch"}}
               for i in order]
    events += [{"type": "choice.made", "nodeId": "n1", "attemptIndex": winner},
               {"type": "turn.status", "status": "completed", "nodeId": "n1"}]
    for seq, event in enumerate(events, start=1):
        event["seq"] = seq
    scan = scan_events(events)
    assert [(d.path, d.attempt) for d in scan.diffs] == [
        (f"agents/a{winner}/diff.patch", None)]


@settings(max_examples=200, deadline=None)
@given(logs(), st.integers(1, 10**20))
def test_a_seq_past_the_end_of_a_finished_log_is_refused_not_snapped_back(
        events: list[dict[str, Any]], beyond: int) -> None:
    # the run has no event there: snapping back would fork from a point never asked for
    live = scan_events(events, live=True)
    if live.points:  # a live run's log grows: past its end is "where it is now"
        assert live.snap(events[-1]["seq"] + beyond).point == live.snap(events[-1]["seq"]).point
    scan = scan_events(events)
    last = events[-1]["seq"]
    try:
        scan.snap(last + beyond)
    except NoForkPoint as exc:
        if scan.points:
            assert f"past the end of run {RUN[:8]}" in str(exc)
            assert f"last event is seq {last}" in str(exc)
    else:
        raise AssertionError(f"seq {last + beyond} of a {last}-event log was accepted")
