"""A run read as a conversation: given, said, thought, and each tool call with its result."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.conversation import Conversation

A, B = "node-a", "node-b"


def run_events() -> list[dict]:
    events = [
        {"type": "run.created", "nodes": {A: {"label": "Planner"}, B: {"label": "Coder"}}},
        {"type": "inbox.queued", "nodeId": A, "item": {"kind": "task", "text": "Add greet()"}},
        {"type": "message.assistant.thinking.delta", "nodeId": A, "text": "Two "},
        {"type": "message.assistant.thinking.final", "nodeId": A, "text": "Two steps."},
        {"type": "message.assistant.delta", "nodeId": A, "text": "The plan"},
        {"type": "message.assistant.delta", "nodeId": A, "text": " is"},
        {"type": "message.assistant.final", "nodeId": A, "text": "The plan is in `PLAN.md`."},
        {"type": "inbox.queued", "nodeId": B, "item": {
            "kind": "handoff", "text": "Implement it", "envelope": {"fromNodeId": A}}},
        {"type": "tool.proposed", "nodeId": B,
         "tool": {"id": "t1", "name": "command", "args": {"cmd": "pytest -q"}}},
        {"type": "tool.started", "nodeId": B, "toolId": "t1", "ts": "2026-01-01T00:00:01Z"},
        {"type": "tool.completed", "nodeId": B, "toolId": "t1", "ts": "2026-01-01T00:00:03Z",
         "result": {"ok": True, "output": "3 passed"}},
        {"type": "tool.proposed", "nodeId": B,
         "tool": {"id": "t2", "name": "command", "args": {"cmd": "rm -rf /"}}},
        {"type": "approval.requested", "nodeId": B, "approvalId": "ap1",
         "tool": {"id": "t2", "name": "command", "args": {"cmd": "rm -rf /"}}},
        {"type": "approval.resolved", "nodeId": B, "approvalId": "ap1",
         "resolution": {"status": "denied", "reason": "never"}},
        {"type": "tool.completed", "nodeId": B, "toolId": "t2", "error": "denied by the user"},
        {"type": "message.user", "nodeId": B, "text": "try again"},
        {"type": "run.completed"},
    ]
    return [{"seq": i, "ts": "2026-01-01T00:00:00Z", **e} for i, e in enumerate(events, 1)]


def test_events_become_what_a_person_reads() -> None:
    conv = Conversation()
    conv.extend(run_events())
    kinds = [(e.kind, e.node, e.title or e.text) for e in conv.entries]
    assert kinds == [
        ("incoming", A, "Task"),
        ("thinking", A, "Two steps."),
        ("assistant", A, "The plan is in `PLAN.md`."),
        ("incoming", B, "Handoff from Planner"),
        ("tool", B, "command"),
        ("tool", B, "command"),
        ("user", B, "You"),
        ("system", None, "Run completed"),
    ]
    ran, denied = conv.entries[4], conv.entries[5]
    assert (ran.status, ran.result, ran.extra["latency"]) == ("completed", {"ok": True,
                                                              "output": "3 passed"}, 2.0)
    # a denied call reads as denied, with the reason, in one place (not also "failed")
    assert (denied.status, denied.reason) == ("denied", "never")
    assert not any(e.live for e in conv.entries)


def test_streaming_text_grows_one_entry_until_the_final_message() -> None:
    conv = Conversation()
    events = run_events()
    conv.extend(events[:6])
    live = conv.entries[-1]
    assert (live.kind, live.text, live.live) == ("assistant", "The plan is", True)
    conv.extend(events[6:7])
    assert conv.entries[-1] is live and (live.text, live.live) == ("The plan is in `PLAN.md`.",
                                                                   False)


def test_each_event_counts_once_and_filters_by_node_and_seq() -> None:
    conv = Conversation()
    events = run_events()
    conv.extend(events)
    version = conv.version
    assert not conv.extend(events[3:9])  # read again (a reconnect): nothing changes
    assert conv.version == version
    assert {e.node for e in conv.visible(A)} == {A, None}
    assert [e.kind for e in conv.visible(upto=7)] == ["incoming", "thinking", "assistant"]


@given(st.integers(1, 30), st.integers(1, 60))
def test_only_the_newest_entries_are_kept(limit: int, calls: int) -> None:
    conv = Conversation(limit=limit)
    for i in range(calls):
        conv.extend([{"seq": 2 * i + 1, "type": "tool.proposed", "nodeId": A,
                      "tool": {"id": f"t{i}", "name": "command", "args": {}}},
                     {"seq": 2 * i + 2, "type": "tool.completed", "nodeId": A,
                      "toolId": f"t{i}", "result": {"ok": True}}])
    assert len(conv.entries) == min(limit, calls)
    assert [e.tool_id for e in conv.entries] == [f"t{i}" for i in range(calls)][-limit:]
    assert all(e.status == "completed" for e in conv.entries)
    assert len(conv._tools) <= limit


def denied_call(by: str, reason: str):
    """The tool call of a run whose one request ``by`` denied for ``reason``."""
    conv = Conversation()
    conv.extend([
        {"type": "run.created", "nodes": {A: {"label": "Planner"}}},
        {"type": "tool.proposed", "nodeId": A, "tool": {"id": "t1", "name": "command"}},
        {"type": "approval.requested", "nodeId": A, "approvalId": "a1",
         "tool": {"id": "t1", "name": "command"}},
        {"type": "approval.resolved", "nodeId": A, "approvalId": "a1", "resolution": {
            "status": "denied", "reason": reason, "by": by}}])
    [call] = [e for e in conv.entries if e.kind == "tool"]
    return call


def test_a_request_its_engine_withdrew_reads_as_withdrawn_not_denied() -> None:
    call = denied_call("engine", "the engine detached")
    assert (call.status, call.reason) == ("withdrawn", "the engine detached")
    assert denied_call("gui", "not now").status == "denied"  # a person's no is a denial


def test_a_resumed_run_reads_as_resumed_between_its_failure_and_what_came_after() -> None:
    events = [{"type": "run.failed", "reason": "Coder: exit code 7"},
              {"type": "run.resumed", "reason": "resumed from failed"},
              {"type": "message.assistant.final", "nodeId": B, "text": "built"},
              {"type": "run.completed"}]
    conv = Conversation()
    conv.extend([{"seq": i, "ts": "2026-01-01T00:00:00Z", **e} for i, e in enumerate(events, 1)])
    assert [(e.title or e.text, e.text) for e in conv.entries] == [
        ("Run failed", "Coder: exit code 7"), ("Run resumed", "resumed from failed"),
        ("built", "built"), ("Run completed", "")]


def test_a_run_paused_over_budget_reads_as_paused_between_the_spending_and_the_resume() -> None:
    events = [{"type": "run.created", "nodes": {A: {"label": "Spender"}}},
              {"type": "message.assistant.final", "nodeId": A, "text": "Spending."},
              {"type": "run.budget_exceeded", "nodeId": A, "limit": "maxTokens",
               "budget": 500, "used": 700, "usage": {"inputTokens": 700}},
              {"type": "run.resumed", "reason": "budget raised"}]
    conv = Conversation()
    conv.extend([{"seq": i, "ts": "2026-01-01T00:00:00Z", **e} for i, e in enumerate(events, 1)])
    assert [(e.title or e.text, e.text) for e in conv.entries] == [
        ("Spending.", "Spending."),
        ("Run paused over budget", "its tokens budget: 700 tokens of 500 tokens; the turn "
                                   "that spent it was stopped"),
        ("Run resumed", "budget raised")]
    assert conv.visible(A)[1].node == A, "the pause shows with the node whose budget it was"
