"""Valid wire-form events of every known type, fixed or drawn by hypothesis."""

import uuid
from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st

RUN_ID = "6a1f3a52-2f1e-4c8e-9a4d-1b2c3d4e5f60"
NODE_ID = "0b7d1f7e-95a4-4c3e-8f5e-2a3b4c5d6e7f"
OTHER_NODE_ID = "7c0e5a3d-1b2f-4e6a-9c8d-3e4f5a6b7c8d"
TS = "2026-01-01T00:00:00Z"


def _node(node_id: str = NODE_ID, label: str = "Planner") -> dict[str, Any]:
    return {"id": node_id, "runId": RUN_ID, "label": label, "roleTemplate": "planner",
            "provider": "scripted", "status": "idle"}


def _edge() -> dict[str, Any]:
    return {"id": str(uuid.uuid4()), "from": NODE_ID, "to": OTHER_NODE_ID,
            "type": "handoff", "label": "task"}


def _envelope(message: str = "do it") -> dict[str, Any]:
    return {"kind": "handoff", "id": str(uuid.uuid4()), "fromNodeId": NODE_ID,
            "toNodeId": OTHER_NODE_ID, "createdAt": TS,
            "payload": {"message": message, "structured": {"k": "v"},
                        "artifacts": [{"type": "diff", "ref": "artifact://diff/1"}],
                        "status": {"ok": True, "reason": "tests-pass"}}}


def _tool(name: str = "command") -> dict[str, Any]:
    return {"id": "tool-1", "name": name, "args": {"cmd": "ls"}}


def payloads(text: str = "hello") -> dict[str, dict[str, Any]]:
    """Type-specific fields of one valid event per known type."""
    return {
        "run.created": {"workflowName": "w", "task": text, "mode": "AUTO",
                        "globalMode": "PLANNING",
                        "nodes": {NODE_ID: _node(), OTHER_NODE_ID: _node(OTHER_NODE_ID, "B")},
                        "nodeConfigs": {NODE_ID: {"instructions": text,
                                                  "limits": {"timeoutSec": 5}}},
                        "edges": {(e := _edge())["id"]: e}},
        "run.started": {},
        "run.paused": {"reason": text},
        "run.resumed": {},
        "run.stopped": {"reason": text},
        "run.completed": {},
        "run.failed": {"reason": text},
        "run.interrupted": {},
        "run.forked": {"forkedFrom": {"runId": str(uuid.uuid4()), "seq": 57},
                       "requestedSeq": 60, "point": text,
                       "workspaces": [{"path": "workspace", "source": "/w", "diffs": 3,
                                       "skipped": 1}]},
        "run.patch": {"patch": {"task": text}},
        "run.mode": {"mode": "INTERACTIVE", "globalMode": "IMPLEMENTATION"},
        "run.stalled": {"reason": "output", "evidence": {"hash": "abc", "repeats": 3},
                        "nodeId": NODE_ID},
        "run.budget_exceeded": {"nodeId": NODE_ID, "limit": "maxTokens", "budget": 1000,
                                "used": 1040, "usage": {"tokens": 1040, "wallSec": 3.5}},
        "node.patch": {"nodeId": NODE_ID, "patch": {"summary": text},
                       "config": {"model": "m"}},
        "node.progress": {"nodeId": NODE_ID, "message": text},
        "node.heartbeat": {"nodeId": NODE_ID},
        "node.log": {"nodeId": NODE_ID, "stream": "stderr", "text": text},
        "node.deleted": {"nodeId": NODE_ID},
        "turn.status": {"nodeId": NODE_ID, "status": "started", "turnId": "t1",
                        "agentRunId": "20260204-1830425690-12345", "inboxItemIds": ["i1"]},
        "edge.created": {"edge": _edge()},
        "edge.deleted": {"edgeId": str(uuid.uuid4())},
        "inbox.queued": {"nodeId": OTHER_NODE_ID,
                         "item": {"id": "i1", "kind": "handoff", "text": text,
                                  "envelope": _envelope(text), "queuedAt": TS}},
        "inbox.edited": {"nodeId": OTHER_NODE_ID, "itemId": "i1", "text": text,
                         "structured": {"files": ["a.py"]}},
        "handoff.sent": {"nodeId": NODE_ID, "envelope": _envelope(text)},
        "message.user": {"nodeId": NODE_ID, "text": text},
        "message.assistant.delta": {"nodeId": NODE_ID, "text": text, "messageId": "m1"},
        "message.assistant.final": {"nodeId": NODE_ID, "text": text, "messageId": "m1"},
        "message.assistant.thinking.delta": {"nodeId": NODE_ID, "text": text},
        "message.assistant.thinking.final": {"nodeId": NODE_ID, "text": text},
        "tool.proposed": {"nodeId": NODE_ID, "tool": _tool()},
        "tool.started": {"nodeId": NODE_ID, "toolId": "tool-1"},
        "tool.completed": {"nodeId": NODE_ID, "toolId": "tool-1", "result": {"ok": True},
                           "error": {"message": text}},
        "approval.requested": {"nodeId": NODE_ID, "approvalId": "a1", "tool": _tool(),
                               "context": text},
        "approval.resolved": {"approvalId": "a1",
                              "resolution": {"status": "modified",
                                             "modifiedArgs": {"cmd": "pwd"}}},
        "artifact.created": {"nodeId": NODE_ID,
                             "artifact": {"id": str(uuid.uuid4()), "runId": RUN_ID,
                                          "nodeId": NODE_ID, "kind": "diff",
                                          "name": "diff.patch", "path": "agents/x/diff.patch",
                                          "createdAt": TS, "commit": "ab" * 20,
                                          "branch": "canvas/1a2b3c4d/impl"}},
        "telemetry.usage": {"nodeId": NODE_ID, "inputTokens": 10, "outputTokens": 5,
                            "costUsd": 0.25, "model": "m"},
        "bus.message": {"busType": "PROGRESS", "message": text,
                        "agentRunId": "20260204-1830425690-12345"},
        "verification.result": {"nodeId": NODE_ID, "command": "pytest", "exitCode": 1,
                                "ok": False, "outputTail": text},
        "log.recovered": {"problem": "torn_tail", "offset": 100, "length": 7, "detail": text},
        "attempt.started": {"nodeId": NODE_ID, "turnId": "t1", "attemptIndex": 2,
                            "agentRunId": "20260204-1830425690-12345",
                            "branch": "canvas/1a2b3c4d/impl.t1.a2", "provider": "scripted",
                            "model": "m"},
        "attempt.completed": {"nodeId": NODE_ID, "turnId": "t1", "attemptIndex": 2,
                              "summary": {"index": 2, "ok": True, "commit": "ab" * 20,
                                          "diffstat": " a.txt | 1 +", "output": text}},
        "choice.made": {"nodeId": NODE_ID, "turnId": "t1", "attemptIndex": 2,
                        "commit": "ab" * 20, "by": "user"},
    }


def sample_event(kind: str, text: str = "hello", seq: int | None = 1) -> dict[str, Any]:
    """One valid event dict of type ``kind``."""
    event = {"id": str(uuid.uuid4()), "runId": RUN_ID, "ts": TS, "type": kind}
    event.update(payloads(text)[kind])
    if seq is not None:
        event["seq"] = seq
    return event


KNOWN_TYPES = tuple(payloads())

utc_timestamps = st.datetimes(
    min_value=datetime(1970, 1, 2), max_value=datetime(2999, 12, 31), timezones=st.just(UTC)
).map(lambda d: d.isoformat(timespec="milliseconds").replace("+00:00", "Z"))


@st.composite
def event_dicts(draw: st.DrawFn) -> dict[str, Any]:
    """Any known event with varied ids, time, seq and text."""
    kind = draw(st.sampled_from(KNOWN_TYPES))
    event = sample_event(kind, text=draw(st.text(max_size=40)), seq=draw(
        st.none() | st.integers(min_value=1, max_value=2**53)))
    event["id"] = str(draw(st.uuids()))
    event["runId"] = str(draw(st.uuids()))
    event["ts"] = draw(utc_timestamps)
    return event
