"""The ``merge`` approval in the contract: the request names what it asks about, the fold
keeps it pending with its files and hunks, and the resolution carries the choice."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from desktop.contract.api import ApprovalOut, ResolveApproval
from desktop.contract.events import parse_event
from desktop.store.reducer import fold_events

RUN_ID = "6a1f3a52-2f1e-4c8e-9a4d-1b2c3d4e5f60"
NODE_ID = "0b7d1f7e-95a4-4c3e-8f5e-2a3b4c5d6e7f"
MERGE = {"source": "canvas/6a1f3a52/left", "target": "canvas/6a1f3a52/lead",
         "sender": "left", "commit": "ab" * 20, "worktree": "/data/runs/x/worktrees/lead",
         "files": [{"path": "a.txt", "hunks": [{"line": 3, "ours": "x\n", "theirs": "y\n",
                                                "base": "w\n"}]},
                   {"path": "logo.png", "binary": True, "theirs": False}]}


def event(event_type: str, seq: int, **fields) -> dict:
    return {"id": f"00000000-0000-4000-8000-{seq:012d}", "runId": RUN_ID,
            "ts": "2026-01-01T00:00:00Z", "seq": seq, "type": event_type, **fields}


def created() -> dict:
    return event("run.created", 1, workflowName="w", nodes={
        NODE_ID: {"id": NODE_ID, "runId": RUN_ID, "label": "Lead", "key": "lead"}})


def test_a_merge_approval_names_its_merge_and_a_tool_approval_its_call() -> None:
    parsed = parse_event(event("approval.requested", 2, nodeId=NODE_ID, approvalId="m1",
                               kind="merge", merge=MERGE))
    assert parsed.merge is not None and parsed.merge.files[1].binary
    assert parsed.tool is None
    with pytest.raises(ValidationError, match="names its merge"):
        parse_event(event("approval.requested", 2, approvalId="m1", kind="merge"))
    with pytest.raises(ValidationError, match="names its tool call"):
        parse_event(event("approval.requested", 2, approvalId="t1"))
    parse_event(event("approval.requested", 2, approvalId="t1",
                      tool={"id": "c1", "name": "command", "args": {}}))  # as before


def test_the_fold_keeps_a_merge_approval_pending_until_resolved() -> None:
    requested = event("approval.requested", 2, nodeId=NODE_ID, approvalId="m1", kind="merge",
                      merge=MERGE)
    state = fold_events([created(), requested])
    pending = state.pending_approvals["m1"]
    assert pending.kind == "merge" and pending.node_id == NODE_ID and pending.tool == {}
    assert pending.merge is not None and pending.merge.files[0].hunks[0].base == "w\n"
    resolved = event("approval.resolved", 3, approvalId="m1", resolution={
        "status": "approved", "merge": {"files": {"logo.png": "ours"},
                                        "contents": {"a.txt": "x and y\n"}}, "by": "gui"})
    assert parse_event(resolved).resolution.merge.contents == {"a.txt": "x and y\n"}
    assert fold_events([created(), requested, resolved]).pending_approvals == {}
    # a merge approval without its merge is not folded in
    broken = {**requested, "merge": {"source": "x"}}
    assert fold_events([created(), broken]).pending_approvals == {}


def test_the_api_takes_a_merge_choice_and_lists_a_merge_approval() -> None:
    body = ResolveApproval.model_validate({"status": "approved", "merge": {
        "files": {"a.txt": "theirs"}, "agent": True}})
    assert body.merge is not None and body.merge.files == {"a.txt": "theirs"}
    with pytest.raises(ValidationError):
        ResolveApproval.model_validate({"status": "approved",
                                        "merge": {"files": {"a.txt": "mine"}}})
    with pytest.raises(ValidationError):
        ResolveApproval.model_validate({"status": "approved", "merge": {"agent": "yes",
                                                                        "extra": 1}})
    out = ApprovalOut.model_validate({"approvalId": "m1", "runId": RUN_ID, "kind": "merge",
                                      "merge": MERGE})
    assert out.tool == {} and out.merge is not None
