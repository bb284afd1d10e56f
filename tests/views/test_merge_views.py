"""A merge approval in the views: one line in the status and event lists, the branches and
hunks in the detail pane, a note in the conversation (not a tool call) and its decision."""

from __future__ import annotations

from desktop.views.approval_text import approval_text, resolution_text
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
    assert resolution_text(RESOLVED["resolution"]) == \
        "logo.png: ours; the rest to the agent by gui"
    assert resolution_text({"status": "denied", "reason": "later"}) == \
        "denied (later): the merge was undone"


def test_the_conversation_notes_the_merge_and_its_decision_and_no_tool_call() -> None:
    conv = Conversation()
    conv.extend([{"type": "run.created", "seq": 1, "nodes": {LEAD: {"label": "Lead"}}},
                 REQUESTED, RESOLVED])
    assert [(e.kind, e.title) for e in conv.entries] == [
        ("system", "Lead waits: a merge conflicts"), ("system", "Merge decided")]
    assert "conflicts in a.txt" in conv.entries[0].text
    notes = RunNotes()
    assert [notes.learn(e) for e in (REQUESTED, RESOLVED)] == [None, None]
    assert notes.tools == {}
