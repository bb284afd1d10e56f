"""Event builders shared by the store tests."""

import itertools
from typing import Any

from hypothesis import strategies as st

from desktop.contract.base import new_id

RUN_ID = "11111111-2222-4333-8444-555555555555"
NODE_A = "aaaaaaaa-0000-4000-8000-000000000001"
NODE_B = "bbbbbbbb-0000-4000-8000-000000000002"
EDGE_AB = "eeeeeeee-0000-4000-8000-000000000003"
NODE_C = "cccccccc-0000-4000-8000-000000000004"
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


# --- hypothesis strategies: random but plausible logs ------------------------------

NODES = [NODE_A, NODE_B, NODE_C]
ITEMS = ["i1", "i2", "i3"]
nid = st.sampled_from(NODES)
anything = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                        lambda c: st.lists(c, max_size=3) | st.dictionaries(
                            st.text(max_size=5), c, max_size=3), max_leaves=6)

random_event = st.one_of(
    st.builds(lambda n, i: ev("inbox.queued", nodeId=n, item=item(i)), nid, st.sampled_from(ITEMS)),
    st.builds(lambda n, s, ids, a: ev("turn.status", nodeId=n, status=s, turnId="t",
                                      inboxItemIds=ids, attempt=a, agentRunId="ar"),
              nid, st.sampled_from(["started", "completed", "failed", "cancelled",
                                    "interrupted", "pending", "weird"]),
              st.lists(st.sampled_from(ITEMS), max_size=3), st.integers(1, 3)),
    st.builds(lambda n, p: ev("node.patch", nodeId=n, patch=p), nid,
              st.fixed_dictionaries({}, optional={"label": st.text(max_size=4),
                                                  "status": st.sampled_from(["idle", "x"]),
                                                  "summary": st.text(max_size=4)})),
    st.builds(lambda n: ev("node.deleted", nodeId=n), nid),
    st.builds(lambda n, t: ev("message.assistant.final", nodeId=n, text=t), nid, st.text()),
    st.builds(lambda k: ev(k), st.sampled_from(["run.started", "run.paused", "run.resumed",
                                                 "run.interrupted", "run.completed"])),
    st.builds(lambda n, x: ev("telemetry.usage", nodeId=n, inputTokens=x, outputTokens=x),
              nid, st.integers(0, 1000)),
    st.builds(lambda k, n, junk: ev(k, nodeId=n, junk=junk),
              st.sampled_from(["run.patch", "node.patch", "edge.created", "inbox.queued",
                               "approval.requested", "artifact.created", "unknown.kind",
                               "run.mode", "run.stalled", "turn.status", "node.progress"]),
              nid, anything),
)
logs = st.lists(random_event, max_size=40).map(
    lambda evs: [{**e, "seq": i} for i, e in enumerate([created(), *evs], start=1)])
