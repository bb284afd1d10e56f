"""The notices a run's panels follow, read once from a batch of events."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.notices import (
    ApprovalClosed,
    ApprovalOpened,
    DiffAdded,
    HandoffSent,
    NodeFailed,
    RunChanged,
    RunNotices,
    RunStalled,
    StallEnded,
    TurnChanged,
    notices_of,
)

REQUESTED = {"type": "approval.requested", "approvalId": "ap1", "nodeId": "n1",
             "tool": {"id": "t1", "name": "shell", "args": {}}}


def test_each_kind_of_event_gives_its_notice_in_order() -> None:
    stalled = {"type": "run.stalled", "nodeId": "n1", "reason": "output", "evidence": {}}
    events = [
        {"type": "run.created", "nodes": {}},
        REQUESTED,
        {"type": "turn.status", "nodeId": "n1", "status": "running"},
        {"type": "artifact.created", "nodeId": "n1",
         "artifact": {"kind": "diff", "path": "agents/a1/diff.patch",
                      "createdAt": "2026-11-27T03:00:01Z"}},
        {"type": "artifact.created", "nodeId": "n1", "artifact": {"kind": "output",
                                                                   "path": "x"}},
        {"type": "approval.resolved", "approvalId": "ap1",
         "resolution": {"status": "approved", "reason": "fine"}},
        {"type": "handoff.sent", "nodeId": "n1", "envelope": {"toNodeId": "n2",
                                                               "kind": "handoff"}},
        stalled,
        {"type": "run.resumed"},
        {"type": "turn.status", "nodeId": "n2", "status": "failed", "reason": "exit 3",
         "agentRunId": "a2"},
        {"type": "run.failed", "reason": "n2 failed"},
    ]
    assert notices_of(events) == [
        ApprovalOpened("ap1", REQUESTED),
        TurnChanged("n1", "running"),
        DiffAdded("n1", "agents/a1/diff.patch", "2026-11-27T03:00:01Z"),
        ApprovalClosed("ap1", "approved", "fine"),
        HandoffSent("n1", "n2", "handoff"),
        RunStalled(stalled),
        RunChanged("run.stalled", "output"),
        RunChanged("run.resumed"),
        StallEnded(),
        TurnChanged("n2", "failed", "exit 3"),
        NodeFailed("n2", "exit 3", "a2"),
        NodeFailed("", "n2 failed"),
        RunChanged("run.failed", "n2 failed"),
        StallEnded(),
    ]


def test_subscribers_hear_only_their_kind() -> None:
    hub = RunNotices()
    opened: list[ApprovalOpened] = []
    closed: list[ApprovalClosed] = []
    hub.subscribe(ApprovalOpened, opened.append)
    hub.subscribe(ApprovalClosed, closed.append)
    told = hub.publish([REQUESTED, {"type": "run.stalled", "nodeId": "n1"},
                        {"type": "approval.resolved", "approvalId": "ap1"}])
    assert opened == [ApprovalOpened("ap1", REQUESTED)]
    assert closed == [ApprovalClosed("ap1")]
    assert len(told) == 4  # the stall and the run's move too, though nobody listens


event_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=8)


@given(st.lists(st.fixed_dictionaries(
    {"type": st.sampled_from(["approval.requested", "approval.resolved", "run.stalled",
                              "turn.status", "run.failed", "artifact.created",
                              "handoff.sent", "run.resumed", "node.patch"])},
    optional={"approvalId": event_values, "nodeId": event_values, "status": event_values,
              "artifact": event_values, "envelope": event_values, "reason": event_values,
              "agentRunId": event_values}), max_size=6))
def test_malformed_events_give_well_typed_notices_or_none(events: list[dict]) -> None:
    for notice in notices_of(events):
        if isinstance(notice, ApprovalOpened | ApprovalClosed):
            assert isinstance(notice.approval_id, str) and notice.approval_id
        elif isinstance(notice, NodeFailed):
            assert isinstance(notice.node_id, str) and isinstance(notice.reason, str)
        elif isinstance(notice, DiffAdded):
            assert isinstance(notice.path, str) and notice.path
        elif isinstance(notice, HandoffSent):
            assert isinstance(notice.from_node, str) and isinstance(notice.to_node, str)


def test_a_budget_pause_is_a_notice_of_its_own_and_a_run_change() -> None:
    from desktop.views.notices import BudgetExceeded

    events = [{"type": "run.budget_exceeded", "nodeId": "n1", "limit": "maxTokens",
               "budget": 1000, "used": 1040},
              {"type": "run.budget_exceeded", "limit": "maxCostUsd", "budget": 2,
               "used": "garbage"}]
    assert notices_of(events) == [
        BudgetExceeded("n1", "maxTokens", 1000.0, 1040.0),
        RunChanged("run.budget_exceeded"),
        BudgetExceeded("", "maxCostUsd", 2.0, 0.0),
        RunChanged("run.budget_exceeded"),
    ]


def test_a_request_its_engine_denied_on_letting_go_closes_as_withdrawn() -> None:
    def closed(by: str) -> list:
        return notices_of([{"type": "approval.resolved", "approvalId": "ap1", "resolution": {
            "status": "denied", "reason": "the engine detached", "by": by}}])

    assert closed("engine") == [ApprovalClosed("ap1", "withdrawn", "the engine detached",
                                               "engine")]
    assert closed("gui") == [ApprovalClosed("ap1", "denied", "the engine detached", "gui")]
