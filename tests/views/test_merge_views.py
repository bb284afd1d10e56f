"""A merge approval in the views: one line in the status and event lists, the branches and
hunks in the detail pane, a note in the conversation (not a tool call) and its decision;
each merge into a node's worktree, and a node a conflict blocked, marked in the
conversation; a branch with its count of commits ahead."""

from __future__ import annotations

from desktop.views.approval_text import approval_text, resolution_text
from desktop.views.branches import ahead_text, branch_note, merge_note
from desktop.views.conversation import Conversation
from desktop.views.format import full_markdown, preview
from desktop.views.tool_calls import RunNotes

LEAD = "node-lead"
MERGE = {"source": "canvas/1a2b3c4d/right", "target": "canvas/1a2b3c4d/lead",
         "sender": "right", "commit": "ab" * 20, "worktree": "/runs/r/worktrees/lead",
         "files": [{"path": "a.txt", "hunks": [{"line": 2, "ours": "left\n",
                                                "theirs": "right\n"}]},
                   {"path": "logo.png", "binary": True, "theirs": False}]}
REQUESTED = {"type": "approval.requested", "nodeId": LEAD, "approvalId": "m1", "kind": "merge",
             "merge": MERGE, "seq": 2, "ts": "2026-01-01T00:00:00Z"}
RESOLVED = {"type": "approval.resolved", "nodeId": LEAD, "approvalId": "m1", "seq": 3,
            "ts": "2026-01-01T00:00:01Z", "resolution": {
                "status": "approved", "by": "gui",
                "merge": {"files": {"logo.png": "ours"}, "contents": {}, "agent": True}}}


def test_a_merge_approval_reads_as_its_branches_and_files() -> None:
    line = ("merge canvas/1a2b3c4d/right into canvas/1a2b3c4d/lead: conflicts in a.txt "
            "(1 conflict), logo.png (binary, deleted on theirs)")
    assert approval_text(REQUESTED) == line
    assert preview(REQUESTED) == f"decision needed: {line}"
    detail = full_markdown(REQUESTED)
    assert "`canvas/1a2b3c4d/right` (from right" in detail and "/runs/r/worktrees/lead" in detail
    assert "line 2, ours:\n```\nleft\n```" in detail and "theirs:\n```\nright\n```" in detail
    assert approval_text({"tool": {"name": "command", "args": {"cmd": "ls"}}}) == \
        "command: $ ls"
    # a person's decision in the product's words (desktop/views/deciders.py), never the
    # log's name of the client they used ("gui"), in the transcript as in the Conversation
    said = "resolved by a person in the app: logo.png: ours; the rest to the agent"
    assert resolution_text(RESOLVED["resolution"]) == said
    assert preview(RESOLVED) == said
    assert resolution_text({"status": "denied", "reason": "later", "by": "cli"}) == \
        "refused by a person in the terminal (later): the merge was undone"
    refused = {**RESOLVED, "resolution": {"status": "denied", "reason": "later", "by": "gui"}}
    assert preview(refused) == "refused by a person in the app (later)"
    # the request told it was a merge's: what refusing it did is said too
    notes = RunNotes()
    notes.learn(REQUESTED)
    assert preview(refused, merges=notes.merges) == \
        "refused by a person in the app (later): the merge was undone"
    assert "gui" not in resolution_text(refused["resolution"])
    assert resolution_text({"status": "denied", "by": "engine"}) == \
        "withdrawn: the merge was undone"


def test_the_conversation_notes_the_merge_and_its_decision_and_no_tool_call() -> None:
    conv = Conversation()
    conv.extend([{"type": "run.created", "seq": 1, "nodes": {
        LEAD: {"label": "Lead"}, "node-right": {"key": "right", "label": "Right side"}}},
                 REQUESTED, RESOLVED])
    # the merge names its sender by key; the line names the node as the canvas does
    assert [(e.kind, e.title) for e in conv.entries] == [
        ("system", "Lead waits: merging Right side's branch conflicts"),
        ("system", "Merge decided")]
    unknown = Conversation()  # a sender the run never named stays as the merge gave it
    unknown.extend([{"type": "run.created", "seq": 1, "nodes": {LEAD: {"label": "Lead"}}},
                    REQUESTED])
    assert unknown.entries[0].title == "Lead waits: merging right's branch conflicts"
    assert "conflicts in a.txt" in conv.entries[0].text
    notes = RunNotes()
    assert [notes.learn(e) for e in (REQUESTED, RESOLVED)] == [None, None]
    assert notes.tools == {}


def test_the_conversation_marks_each_merge_and_a_node_blocked_by_a_conflict() -> None:
    conv = Conversation()
    conv.extend([
        {"type": "run.created", "seq": 1, "nodes": {LEAD: {"label": "Lead"}}},
        {"type": "node.progress", "nodeId": LEAD, "seq": 2, "ts": "2026-01-01T00:00:00Z",
         "message": "merged canvas/1a2b3c4d/left (from left) into canvas/1a2b3c4d/lead "
                    "(0123abcd)"},
        {"type": "node.progress", "nodeId": LEAD, "seq": 3, "ts": "2026-01-01T00:00:01Z",
         "message": "merged canvas/1a2b3c4d/right (from right) into canvas/1a2b3c4d/lead "
                    "(4567cdef): resolved by a person: a.txt: theirs"},
        {"type": "node.progress", "nodeId": LEAD, "seq": 4, "message": "thinking it over"},
        {"type": "node.patch", "nodeId": LEAD, "seq": 5, "patch": {
            "status": "blocked", "summary": "merge conflict with canvas/1a2b3c4d/right"}},
        {"type": "node.patch", "nodeId": LEAD, "seq": 6, "patch": {"git": {"ahead": 3}}},
    ])
    assert [(e.kind, e.node, e.title, e.text) for e in conv.entries] == [
        ("system", LEAD, "Lead merged left's branch",
         "canvas/1a2b3c4d/left into canvas/1a2b3c4d/lead at 0123abcd"),
        ("system", LEAD, "Lead merged right's branch",
         "canvas/1a2b3c4d/right into canvas/1a2b3c4d/lead at 4567cdef; resolved by a person: "
         "a.txt: theirs"),
        ("system", LEAD, "Lead is blocked", "merge conflict with canvas/1a2b3c4d/right")]


def test_a_branch_reads_with_its_count_ahead() -> None:
    assert branch_note({"label": "x"}) is None
    note = branch_note({"git": {"branch": "canvas/1a2b3c4d/lead", "ahead": 3}})
    assert note is not None and note.count_text == "+3"
    none_yet = branch_note({"git": {"branch": "canvas/1a2b3c4d/lead", "ahead": 0}})
    assert none_yet is not None and none_yet.count_text == ""
    uncounted = branch_note({"git": {"branch": "canvas/1a2b3c4d/lead"}})
    assert uncounted is not None and uncounted.count_text == ""
    assert [ahead_text(n) for n in (0, 1, 2)] == ["no commits ahead", "1 commit ahead",
                                                  "2 commits ahead"]
    assert merge_note("merging canvas/1a2b3c4d/right into x conflicts in a.txt") is None


def test_a_best_of_n_choice_reads_as_its_attempts_then_the_one_chosen() -> None:
    attempts = [{"index": 1, "ok": True, "diffstat": " 1 file changed, 2 insertions(+)",
                 "output": "wrote one.txt"},
                {"index": 2, "ok": False, "error": "exit 1"}]
    asked = {"type": "approval.requested", "seq": 2, "nodeId": LEAD, "approvalId": "c1",
             "kind": "choice", "choice": {"turnId": "t1", "attempts": attempts}}
    conv = Conversation()
    conv.extend([{"type": "run.created", "seq": 1, "nodes": {LEAD: {"label": "Lead"}}}, asked,
                 {"type": "approval.resolved", "seq": 3, "nodeId": LEAD, "approvalId": "c1",
                  "resolution": {"status": "approved", "choice": 1, "by": "gui"}},
                 {"type": "choice.made", "seq": 4, "nodeId": LEAD, "turnId": "t1",
                  "attemptIndex": 1, "commit": "0123456789abcdef", "by": "gui"}])
    assert [(e.kind, e.title) for e in conv.entries] == [
        ("system", "Lead waits: choose one of 2 attempts"),
        ("system", "Lead: attempt 1 chosen by a person in the app")]
    assert conv.entries[0].text.splitlines() == [
        'attempt 1: 1 file changed, 2 insertions(+); "wrote one.txt"',
        "attempt 2: failed (exit 1)"]
    assert conv.entries[1].text.startswith("attempt 1 goes on at 01234567")
    denied = Conversation()
    denied.extend([asked, {"type": "approval.resolved", "seq": 3, "nodeId": LEAD,
                           "approvalId": "c1", "resolution": {"status": "denied",
                                                              "reason": "none is right"}}])
    assert [(e.title, e.text) for e in denied.entries][1:] == [
        ("No attempt chosen", "refused by a person (none is right): the turn fails")]
    assert not any(e.kind == "tool" for e in conv.entries + denied.entries)


def test_a_merge_reads_as_the_work_of_the_report_that_brought_it() -> None:
    """The merge happens at the start of the receiver's next turn, after the report: its
    line names the report's sender as the report does (label, not key), and says the
    work it merged is what that report brought."""
    right, left = "n-right", "n-left"
    conv = Conversation()
    conv.extend([
        {"type": "run.created", "seq": 1, "nodes": {
            LEAD: {"key": "lead", "label": "Lead"},
            right: {"key": "right", "label": "Right half"},
            left: {"key": "left", "label": "Left half"}}},
        {"type": "inbox.queued", "seq": 2, "nodeId": LEAD, "item": {
            "kind": "report", "text": "right is done",
            "envelope": {"fromNodeId": right, "toNodeId": LEAD}}},
        {"type": "inbox.queued", "seq": 3, "nodeId": LEAD, "item": {
            "kind": "handoff", "text": "take left over",
            "envelope": {"fromNodeId": left, "toNodeId": LEAD}}},
        {"type": "node.progress", "nodeId": LEAD, "seq": 4,
         "message": "merged canvas/1a2b/right (from right) into canvas/1a2b/lead (0123abcd)"},
        {"type": "node.progress", "nodeId": LEAD, "seq": 5,
         "message": "merged canvas/1a2b/left (from left) into canvas/1a2b/lead (4567cdef)"},
        {"type": "node.progress", "nodeId": right, "seq": 6,
         "message": "merged canvas/1a2b/lead (from lead) into canvas/1a2b/right (89abcdef)"},
    ])
    assert [e.title for e in conv.entries] == [
        "Report from Right half", "Handoff from Left half",
        "Lead merged the work reported by Right half",
        "Lead merged the work handed off by Left half",
        "Right half merged Lead's branch"]  # nothing of Lead's came in: its branch
