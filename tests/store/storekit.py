"""Event builders shared by the store tests."""

import itertools
from typing import Any

from desktop.contract.base import new_id

RUN_ID = "11111111-2222-4333-8444-555555555555"
NODE_A = "aaaaaaaa-0000-4000-8000-000000000001"
NODE_B = "bbbbbbbb-0000-4000-8000-000000000002"
EDGE_AB = "eeeeeeee-0000-4000-8000-000000000003"
_clock = itertools.count()


def ts(i: int | None = None) -> str:
    """A distinct, valid UTC timestamp."""
    n = next(_clock) if i is None else i
    return f"2026-01-01T00:{(n // 60) % 60:02d}:{n % 60:02d}.{n % 1000:03d}Z"


def ev(kind: str, **fields: Any) -> dict:
    """An event dict as the runtime would append it."""
    return {"id": new_id(), "runId": RUN_ID, "ts": ts(), "type": kind, **fields}


def node(nid: str, label: str) -> dict:
    return {"id": nid, "runId": RUN_ID, "label": label, "key": label.lower()}


def created(**extra: Any) -> dict:
    """run.created with two nodes A -> B."""
    return ev("run.created", workflowName="demo", task="do it", nodes={
        NODE_A: node(NODE_A, "A"), NODE_B: node(NODE_B, "B")},
        nodeConfigs={NODE_A: {"instructions": "plan"}, NODE_B: {}},
        edges={EDGE_AB: {"id": EDGE_AB, "from": NODE_A, "to": NODE_B}}, **extra)


def item(iid: str, text: str = "hello") -> dict:
    return {"id": iid, "kind": "task", "text": text}


def story() -> list[dict]:
    """A short run touching most reducer rules."""
    return [
        created(),
        ev("run.started"),
        ev("inbox.queued", nodeId=NODE_A, item=item("i1")),
        ev("inbox.queued", nodeId=NODE_A, item=item("i2")),
        ev("turn.status", nodeId=NODE_A, status="started", turnId="t1", agentRunId="ar1",
           inboxItemIds=["i1"]),
        ev("message.assistant.delta", nodeId=NODE_A, text="Hel"),
        ev("telemetry.usage", nodeId=NODE_A, inputTokens=10, outputTokens=5, costUsd=0.01),
        ev("message.assistant.final", nodeId=NODE_A, text="Plan ready\nmore"),
        ev("turn.status", nodeId=NODE_A, status="completed", turnId="t1", agentRunId="ar1"),
        ev("approval.requested", nodeId=NODE_B, approvalId="ap1",
           tool={"id": "t", "name": "command", "args": {"cmd": "ls"}}),
        ev("future.thing", nodeId=NODE_A, payload={"x": 1}),
        ev("node.progress", nodeId=NODE_B, message="working"),
    ]
