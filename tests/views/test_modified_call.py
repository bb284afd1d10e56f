"""A tool call a person modified before approving reads as the call that ran: its args,
who modified it, and the agent's proposal beside them, in the Conversation and the
transcript, whatever order the events are learned in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.views.conversation import Conversation
from desktop.views.format import full_markdown, preview
from desktop.views.tool_calls import RunNotes
from desktop.views.transcript import TranscriptRows

NODE = "builder"
PROPOSED = {"cmd": "echo built > build.txt"}
HACKED = {"cmd": "echo hacked > build.txt"}


def modified_run(ran: dict, started_args: bool = True, by: str = "gui") -> list[dict]:
    """The events of one gated call a person modified to ``ran`` (as the scripted agent
    writes them; ``started_args`` False: a provider whose tool.started names no args)."""
    started = {"type": "tool.started", "nodeId": NODE, "toolId": "t1",
               "ts": "2026-01-01T00:00:01Z"}
    if started_args:
        started["args"] = ran
    events = [
        {"type": "run.created", "nodes": {NODE: {"label": "Builder"}}},
        {"type": "tool.proposed", "nodeId": NODE,
         "tool": {"id": "t1", "name": "command", "args": PROPOSED}},
        {"type": "approval.requested", "nodeId": NODE, "approvalId": "ap1",
         "tool": {"id": "t1", "name": "command", "args": PROPOSED}},
        {"type": "approval.resolved", "nodeId": NODE, "approvalId": "ap1",
         "resolution": {"status": "modified", "modifiedArgs": ran, "by": by}},
        started,
        {"type": "tool.completed", "nodeId": NODE, "toolId": "t1",
         "ts": "2026-01-01T00:00:02Z", "result": {"ok": True, "output": ""}},
    ]
    return [{"seq": i, "ts": "2026-01-01T00:00:00Z", **e} for i, e in enumerate(events, 1)]


def test_the_conversation_shows_the_args_that_ran_and_who_modified_them() -> None:
    conv = Conversation()
    conv.extend(modified_run(HACKED))
    (call,) = [e for e in conv.entries if e.kind == "tool"]
    assert call.args == HACKED
    assert call.proposed_args == PROPOSED
    assert call.modified_by == "a person in the app"
    assert call.status == "completed"


def test_an_approved_call_is_not_marked_modified() -> None:
    events = modified_run(PROPOSED)
    events[3]["resolution"] = {"status": "approved", "by": "gui"}
    conv = Conversation()
    conv.extend(events)
    (call,) = [e for e in conv.entries if e.kind == "tool"]
    assert (call.args, call.proposed_args, call.modified_by) == (PROPOSED, None, "")
    rows = TranscriptRows()
    rows.ingest(events)
    assert "modified" not in preview(events[1], rows.tools)


def test_the_modified_args_show_before_the_call_starts_and_without_started_args() -> None:
    conv = Conversation()
    events = modified_run(HACKED, started_args=False)
    conv.extend(events[:4])  # decided, not started yet
    (call,) = [e for e in conv.entries if e.kind == "tool"]
    assert (call.args, call.status, call.modified_by) == (HACKED, "approved",
                                                          "a person in the app")
    conv.extend(events[4:])
    assert (call.args, call.proposed_args, call.status) == (HACKED, PROPOSED, "completed")


def test_the_transcript_row_and_detail_show_the_args_that_ran() -> None:
    events = modified_run(HACKED)
    rows = TranscriptRows()
    rows.ingest(events)
    row = next(r for r in range(rows.count) if rows.event_at(r)["type"] == "tool.proposed")
    line = rows.display(row)
    assert line.startswith('command {"cmd": "echo hacked > build.txt"} '
                           "(modified by a person in the app) · completed")
    assert "echo built" not in line
    detail = rows.markdown(row)
    assert "arguments (modified by a person in the app):" in detail
    ran_at, proposed_at = detail.index("echo hacked"), detail.index("echo built")
    assert ran_at < proposed_at and "proposed:" in detail[ran_at:proposed_at]


def test_a_transcript_row_read_before_the_decision_changes_when_it_comes() -> None:
    events = modified_run(HACKED)
    rows = TranscriptRows()
    rows.ingest(events[:3])
    row = next(r for r in range(rows.count) if rows.event_at(r)["type"] == "tool.proposed")
    assert "echo built" in rows.display(row)
    changed: list[tuple[int, int]] = []
    rows.sink.rows_changed = lambda first, last: changed.append((first, last))
    rows.ingest(events[3:4])
    assert any(first <= row <= last for first, last in changed)
    assert "echo hacked" in rows.display(row) and "modified by" in rows.display(row)


WORD = st.text(alphabet="abcxyz019 >", max_size=20)  # never the proposal's "echo built"
ARGS = st.dictionaries(st.text(alphabet="abcdmx", min_size=1, max_size=8),
                       st.one_of(WORD, st.integers(), st.booleans()),
                       min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(ran=ARGS.filter(lambda a: a != PROPOSED), started_args=st.booleans(),
       order=st.permutations(range(1, 6)))
def test_any_order_of_learning_gives_the_args_that_ran(ran: dict, started_args: bool,
                                                       order: list[int]) -> None:
    """Views read a big log lazily, out of order: the record ends the same."""
    events = modified_run(ran, started_args)
    notes = RunNotes()
    notes.learn(events[0])
    for i in order:
        notes.learn(events[i])
    info = notes.tools["t1"]
    assert (info["args"], info["modified"], info["status"]) == (ran, True, "completed")
    line = preview(events[1], notes.tools)
    assert "(modified by a person in the app)" in line
    assert "echo built" not in line
    assert "modified by a person in the app" in full_markdown(events[1], notes.tools)
