"""fold(state, event) -> state: the run's state rebuilt from its events.

Pure and total: the same events always give the same state, an unknown event (or a known
one with a payload that does not fit) leaves the state unchanged, and nothing passed in is
mutated. Internally the state is a plain wire-form dict and each event type has a small
handler, so folding a long log builds no model per event; pieces that come from event
payloads (nodes, configs, edges, inbox items, artifacts) are validated when stored, and the
whole state is validated once at the end.
"""

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ValidationError

from desktop.contract.attempts import ChoiceRequest
from desktop.contract.enums import TURN_CUT_SHORT
from desktop.contract.events import EventBase
from desktop.contract.merge import MergeRequest
from desktop.contract.state import (
    Artifact,
    EdgeState,
    ForkedFrom,
    InboxItem,
    NodeConfig,
    NodeState,
    RunState,
)
from desktop.store import turn_clock
from desktop.store.state_repair import validate_state

State = dict[str, Any]
SUMMARY_MAX = 120


def copy_json(x: Any) -> Any:
    """A deep copy of a JSON value (dicts and lists are rebuilt, scalars shared)."""
    t = type(x)
    if t is dict:
        return {k: copy_json(v) for k, v in x.items()}
    if t is list:
        return [copy_json(v) for v in x]
    return x


def _merge(dst: dict, src: dict) -> None:
    for k, v in src.items():
        cur = dst.get(k)
        if type(v) is dict and type(cur) is dict:
            _merge(cur, v)
        else:
            dst[k] = copy_json(v)


def _checked(model: type, data: Any) -> dict | None:
    """``data`` in normal wire form if it validates as ``model``, else None."""
    try:
        return model.model_validate(data).to_json_dict()
    except (ValidationError, TypeError, ValueError):
        return None


def _node(s: State, e: dict) -> dict | None:
    nid = e.get("nodeId")
    return s["nodes"].get(nid) if type(nid) is str else None


# --- handlers: return the new state, or None to ignore the event --------------------------

def _run_created(s: State | None, e: dict) -> State | None:
    ts = e.get("ts")
    new = {"id": e.get("runId"), "status": "queued", "createdAt": ts, "updatedAt": ts}
    for key in ("mode", "globalMode", "workflowName", "workflowPath", "task", "nodes",
                "nodeConfigs", "edges", "forkedFrom", "executor", "isolation", "workspace",
                "worktreeSetup", "budget"):
        if e.get(key) is not None:
            new[key] = e[key]
    return _checked(RunState, new)


def _add_usage(usage: dict, key: str, value: float) -> None:
    usage[key] = float(usage.get(key, 0.0)) + value


def _stop_clock(s: State, until: Any) -> None:
    """The run leaves ``running``: its time since ``runningSince`` counts as wall time."""
    since = s.pop("runningSince", None)
    if since is not None:
        _add_usage(s["usage"], "wallSec", turn_clock.seconds(since, until))


def _status(value: str) -> Callable[[State, dict], State]:
    def handler(s: State, e: dict) -> State:
        s["status"] = value
        _stop_clock(s, e.get("ts"))
        return s
    return handler


def _run_live(s: State, e: dict) -> State:
    s["status"] = "running"
    s["interrupted"] = False
    s.pop("stall", None)
    s.pop("budgetExceeded", None)
    if "runningSince" not in s and type(e.get("ts")) is str:
        s["runningSince"] = e["ts"]
    return s


def _run_interrupted(s: State, e: dict) -> State:
    s["interrupted"] = True
    # The engine died some time after the last event it wrote: count until then.
    _stop_clock(s, s.get("updatedAt"))
    return s


def _budget_exceeded(s: State, e: dict) -> State | None:
    if e.get("limit") not in ("maxTokens", "maxCostUsd", "maxWallSec"):
        return None
    found = {"limit": e["limit"], "budget": e.get("budget"), "used": e.get("used")}
    if type(e.get("nodeId")) is str:
        found["nodeId"] = e["nodeId"]
    s["status"] = "paused"
    s["budgetExceeded"] = found
    _stop_clock(s, e.get("ts"))
    return s


def _run_forked(s: State, e: dict) -> State | None:
    # A fork is created when it is forked: its copied events keep their own times.
    lineage = _checked(ForkedFrom, e.get("forkedFrom"))
    if lineage is None:
        return None
    s["forkedFrom"] = lineage
    if e.get("ts") is not None:
        s["createdAt"] = e["ts"]
    return s


def _run_patch(s: State, e: dict) -> State | None:
    patch = e.get("patch")
    if type(patch) is not dict:
        return None
    new = dict(s)
    new.update(copy_json(patch))
    return _checked(RunState, new)


def _run_mode(s: State, e: dict) -> State | None:
    mode, gmode = e.get("mode"), e.get("globalMode")
    if mode not in (None, "AUTO", "INTERACTIVE") or gmode not in (
            None, "PLANNING", "IMPLEMENTATION"):
        return None
    if mode is not None:
        s["mode"] = mode
    if gmode is not None:
        s["globalMode"] = gmode
    return s


def _run_stalled(s: State, e: dict) -> State:
    stall = {"reason": e.get("reason"), "evidence": copy_json(e.get("evidence") or {})}
    if e.get("nodeId") is not None:
        stall["nodeId"] = e["nodeId"]
    s["status"] = "paused"
    s["stall"] = stall
    _stop_clock(s, e.get("ts"))
    node = _node(s, e)
    if node is not None:
        node["status"] = "blocked"
        node["summary"] = "stalled"
    return s


def _node_patch(s: State, e: dict) -> State | None:
    nid, patch, config = e.get("nodeId"), e.get("patch") or {}, e.get("config")
    if type(nid) is not str or type(patch) is not dict or type(config) not in (dict, type(None)):
        return None
    old = s["nodes"].get(nid)
    if old is None:
        node = {"label": patch.get("label") or patch.get("key") or nid}
    else:
        node = copy_json(old)
    _merge(node, patch)
    node["id"], node["runId"] = nid, s["id"]
    node = _checked(NodeState, node)
    if node is None:
        return None
    if config is not None:
        cfg = copy_json(s["nodeConfigs"].get(nid, {}))
        _merge(cfg, config)
        cfg = _checked(NodeConfig, cfg)
        if cfg is None:
            return None
        s["nodeConfigs"][nid] = cfg
    s["nodes"][nid] = node
    return s


def _node_progress(s: State, e: dict) -> State | None:
    node, msg = _node(s, e), e.get("message")
    if node is not None and type(msg) is str:
        node["summary"] = msg
    return s


def _node_deleted(s: State, e: dict) -> State:
    nid = e.get("nodeId")
    s["nodes"].pop(nid, None)
    s["nodeConfigs"].pop(nid, None)
    s["inboxes"].pop(nid, None)
    edges = s["edges"]
    for eid in [k for k, v in edges.items() if nid in (v.get("from"), v.get("to"))]:
        del edges[eid]
    return s


def _inbox_queued(s: State, e: dict) -> State | None:
    nid, item = e.get("nodeId"), _checked(InboxItem, e.get("item"))
    if type(nid) is not str or item is None:
        return None
    s["inboxes"].setdefault(nid, []).append(item)
    return s


def _inbox_edited(s: State, e: dict) -> State | None:
    text, structured = e.get("text"), e.get("structured")
    queued = s["inboxes"].get(e.get("nodeId"), ())
    item = next((i for i in queued if i.get("id") == e.get("itemId")), None)
    if item is None or type(text) is not str:
        return None
    item["text"] = text
    payload = (item.get("envelope") or {}).get("payload")
    if isinstance(payload, dict):
        payload["message"] = text
        if isinstance(structured, dict):
            payload["structured"] = structured
    return s


def _give_back(s: State, nid: str, turn: dict | None) -> None:
    """Put an ended turn's items back at the front of its node's inbox, marked to restart."""
    if turn and turn.get("items"):
        back = [{**it, "restart": True} for it in turn["items"]]
        s["inboxes"][nid] = back + s["inboxes"].get(nid, [])


def _turn_status(s: State, e: dict) -> State | None:
    nid, status = e.get("nodeId"), e.get("status")
    if type(nid) is not str:
        return None
    node = s["nodes"].get(nid)
    running = s["runningTurns"]
    turn_before = running.get(nid)
    if status == "started":
        ids = e.get("inboxItemIds") or []
        attempt = e.get("attempt", 1)
        if type(ids) is not list or type(attempt) is not int:
            return None
        wanted = set(ids)
        inbox = s["inboxes"].get(nid, [])
        taken = [it for it in inbox if it.get("id") in wanted]
        kept = [it for it in inbox if it.get("id") not in wanted]
        previous = running.get(nid)
        items = previous["items"] + taken if attempt > 1 and previous else taken
        turn = {"turnId": e.get("turnId"), "attempt": attempt, "items": items}
        if type(e.get("ts")) is str:
            turn["startedAt"] = e["ts"]
        if e.get("agentRunId") is not None:
            turn["agentRunId"] = e["agentRunId"]
        running[nid] = turn
        if nid in s["inboxes"]:
            s["inboxes"][nid] = kept
        new_status = "running"
    elif status == "completed":
        turn = running.pop(nid, None) or {}
        s["turns"][nid] = s["turns"].get(nid, 0) + 1
        agent_run = e.get("agentRunId") or turn.get("agentRunId")
        if agent_run is not None:
            s["lastAgentRun"][nid] = agent_run
        new_status = "idle"
    elif status == "failed":
        # its input waits in the inbox, as a cut-short turn's does: resuming the failed
        # run takes it again (the run fails at once, so nothing takes it before). Only
        # when the event says so: a run recorded before dropped it, and folds as it was.
        turn = running.pop(nid, None)
        if e.get("inputKept") is True:
            _give_back(s, nid, turn)
        if node is not None:
            node["summary"] = e.get("reason") or ""
        new_status = "failed"
    elif status in TURN_CUT_SHORT:
        _give_back(s, nid, running.pop(nid, None))
        new_status = "idle"
    elif status == "pending":
        return s
    else:
        return None
    if status != "started" and turn_before is not None:
        # time the turn waited for a person is not its wall time (desktop/store/turn_clock.py)
        spent = turn_clock.seconds(turn_clock.clock_start(turn_before), e.get("ts"))
        _add_usage(s.setdefault("nodeUsage", {}).setdefault(nid, {}), "wallSec", spent)
    if node is not None:
        node["status"] = new_status
    return s


def _edge_created(s: State, e: dict) -> State | None:
    edge = _checked(EdgeState, e.get("edge"))
    if edge is None:
        return None
    s["edges"][edge["id"]] = edge
    return s


def _edge_deleted(s: State, e: dict) -> State:
    s["edges"].pop(e.get("edgeId"), None)
    return s


_ASKS: dict[str, type] = {"merge": MergeRequest, "choice": ChoiceRequest}
"""Approval kinds other than a tool call, and the model of what each asks."""


def _approval_requested(s: State, e: dict) -> State | None:
    aid, tool, kind = e.get("approvalId"), e.get("tool"), e.get("kind")
    asked = e.get(kind) if kind in _ASKS else tool
    if type(aid) is not str or type(asked) is not dict:
        return None
    pending = {"approvalId": aid, "requestedAt": e.get("ts")}
    if kind in _ASKS:
        checked = _checked(_ASKS[kind], asked)
        if checked is None:
            return None
        pending.update({"kind": kind, kind: checked})
    else:
        pending["tool"] = copy_json(tool)
    for key in ("nodeId", "context"):
        if type(e.get(key)) is str:
            pending[key] = e[key]
    s["pendingApprovals"][aid] = pending
    return s


def _approval_resolved(s: State, e: dict) -> State:
    s["pendingApprovals"].pop(e.get("approvalId"), None)
    return s


def _attempt_agent(s: State, e: dict) -> State:
    turn_clock.count_agent(s, e)
    return s


def _artifact_created(s: State, e: dict) -> State | None:
    art = _checked(Artifact, e.get("artifact"))
    if art is None:
        return None
    s["artifacts"][art["id"]] = art
    agent_run, digest = art.get("agentRunId"), art.get("runnerHash")
    if type(agent_run) is str and type(digest) is str:  # a runner.json record
        s.setdefault("runnerHashes", {})[agent_run] = digest
    return s


def _usage(s: State, e: dict) -> State:
    nid = e.get("nodeId")
    totals = [s["usage"]]
    if type(nid) is str:
        totals.append(s.setdefault("nodeUsage", {}).setdefault(nid, {}))
    for key in ("inputTokens", "outputTokens", "costUsd"):
        v = e.get(key)
        if type(v) in (int, float):
            for usage in totals:
                _add_usage(usage, key, v)
    return s


def _final(s: State, e: dict) -> State:
    node, text = _node(s, e), e.get("text")
    if node is not None and type(text) is str:
        stripped = text.strip()
        node["summary"] = stripped.split("\n", 1)[0].strip()[:SUMMARY_MAX] if stripped else ""
    return s


def _noop(s: State, e: dict) -> State:
    return s


HANDLERS: dict[str, Callable[[State, dict], State | None]] = {
    "run.started": _run_live, "run.resumed": _run_live,
    "run.paused": _status("paused"), "run.stopped": _status("stopped"),
    "run.completed": _status("completed"), "run.failed": _status("failed"),
    "run.interrupted": _run_interrupted, "run.forked": _run_forked, "run.patch": _run_patch,
    "run.mode": _run_mode,
    "run.stalled": _run_stalled, "run.budget_exceeded": _budget_exceeded,
    "node.patch": _node_patch, "node.progress": _node_progress,
    "node.deleted": _node_deleted, "inbox.queued": _inbox_queued,
    "inbox.edited": _inbox_edited, "turn.status": _turn_status,
    "edge.created": _edge_created, "edge.deleted": _edge_deleted,
    "approval.requested": _approval_requested, "approval.resolved": _approval_resolved,
    "artifact.created": _artifact_created, "telemetry.usage": _usage,
    "message.assistant.final": _final,
}
for _kind in ("node.heartbeat", "node.log", "handoff.sent", "message.user",
              "message.assistant.delta", "message.assistant.thinking.delta",
              "message.assistant.thinking.final", "tool.proposed", "tool.started",
              "tool.completed", "bus.message", "verification.result", "log.recovered",
              "choice.made"):
    HANDLERS[_kind] = _noop
for _kind in ("attempt.started", "attempt.completed"):
    HANDLERS[_kind] = _attempt_agent


def apply_event(s: State | None, e: dict) -> State | None:
    """Fold one event into the wire-form dict ``s`` (mutated in place; ``e`` is not)."""
    kind = e.get("type")
    if type(kind) is not str:  # not an event of any type (and maybe unhashable)
        return s
    if kind == "run.created":
        new = _run_created(s, e)
        if new is not None:
            seq = e.get("seq")
            if type(seq) is int:
                new["lastSeq"] = seq
        return s if new is None else new
    handler = HANDLERS.get(kind)
    if handler is None:
        return s
    if s is None:  # an event before run.created (its line was lost): start a bare state
        ts = e.get("ts")
        s = _checked(RunState, {"id": e.get("runId"), "createdAt": ts, "updatedAt": ts})
        if s is None:
            return None
    try:
        new = handler(s, e)
    except (TypeError, AttributeError, KeyError, ValueError):  # payload of the wrong shape
        new = None
    if new is None:
        return s
    if kind in turn_clock.CLOCK_EVENTS:
        turn_clock.after(new, e)
    ts, seq = e.get("ts"), e.get("seq")
    if type(ts) is str:
        new["updatedAt"] = ts
        node = _node(new, e)
        if node is not None:
            node["lastActivityAt"] = ts
    if type(seq) is int:
        new["lastSeq"] = seq
    return new


# Streaming events change nothing but the clock, the sequence and the node's activity
# time; apply_events does that inline, without a handler call, for the busiest events.
STREAM_TYPES = frozenset({
    "message.assistant.delta", "message.assistant.thinking.delta", "node.heartbeat",
    "node.log",
})


_EVERY_NODE = frozenset({"run.created", "run.patch"})
"""Events that may replace any node's entries (the state is made anew)."""


def _paused_on(s: State | None) -> str | None:
    """The node whose own budget the run stopped on (its card's meter reads red)."""
    found = s.get("budgetExceeded") if s is not None else None
    node_id = found.get("nodeId") if type(found) is dict else None
    return node_id if type(node_id) is str else None


def _apply_noting(s: State | None, e: dict, kind: Any, touched: set[str]) -> State | None:
    """:func:`apply_event`, adding to ``touched`` every node whose entries (node, config,
    usage, running turn, inbox) the event may have changed: the node it names; every
    node, for an event that makes the state anew; and, for a run event, the node the run
    is paused over budget on before and after it (a status change turns that card's
    meter red, or back)."""
    run_event = type(kind) is str and kind.startswith("run.")
    if run_event:
        before = _paused_on(s)
        if before is not None:
            touched.add(before)
        if kind in _EVERY_NODE and s is not None:
            touched.update(s.get("nodes") or ())
    new = apply_event(s, e)
    node_id = e.get("nodeId")
    if type(node_id) is str:
        touched.add(node_id)
    if run_event and new is not None:
        after = _paused_on(new)
        if after is not None:
            touched.add(after)
        if kind in _EVERY_NODE:
            touched.update(new.get("nodes") or ())
    return new


def apply_events(s: State | None, events: Iterable[dict],
                 touched: set[str] | None = None) -> tuple[State | None, bool]:
    """Fold a batch of events into ``s`` (mutated in place) as :func:`apply_event` does.

    Returns the state and whether anything but the clock, the sequence and activity
    times may have changed (so callers keep derived views until it does). With
    ``touched``, adds to it the ids of the nodes whose entries the batch may have
    changed (streaming events change only activity times and add none), so a view
    derived per node can redo just those.
    """
    changed = False
    nodes = s["nodes"] if s is not None else {}
    for e in events:
        kind = e.get("type")
        if s is not None and type(kind) is str and kind in STREAM_TYPES:
            ts, seq = e.get("ts"), e.get("seq")
            if type(ts) is str:
                s["updatedAt"] = ts
                nid = e.get("nodeId")
                node = nodes.get(nid) if type(nid) is str else None
                if node is not None:
                    node["lastActivityAt"] = ts
            if type(seq) is int:
                s["lastSeq"] = seq
            continue
        s = apply_event(s, e) if touched is None else _apply_noting(s, e, kind, touched)
        nodes = s["nodes"] if s is not None else {}
        changed = True
    return s, changed


def _as_dict(event: EventBase | dict) -> dict:
    return event.to_json_dict() if isinstance(event, EventBase) else event


def state_dict(state: RunState | None) -> State | None:
    """A fresh wire-form dict of ``state`` for :func:`apply_event`."""
    return None if state is None else state.to_json_dict()


def fold(state: RunState | None, event: EventBase | dict) -> RunState:
    """The state after ``event``. Raises ValueError only when there is no state at all."""
    s = apply_event(state_dict(state), _as_dict(event))
    if s is None:
        raise ValueError("no run state yet: the first usable event must carry a run id")
    return validate_state(s)


def fold_events(events: Iterable[EventBase | dict], state: RunState | None = None) -> RunState:
    """Fold ``events`` in order, starting from ``state`` (or from nothing)."""
    s = state_dict(state)
    apply = apply_event
    for e in events:
        s = apply(s, e if type(e) is dict else _as_dict(e))
    if s is None:
        raise ValueError("no run state: the events hold no usable run.created")
    return validate_state(s)
