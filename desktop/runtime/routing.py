"""Where a finished turn's output goes: along the node's edges, as envelopes.

Rules (the engine relies on them; the README of the runtime repeats them):

- Outgoing routes of a node are its edges ``from`` it, plus the reverse
  direction of bidirectional edges ``to`` it. The forward direction carries
  the edge's type; the reverse direction of a bidirectional edge carries a
  report (the answer goes back where the work came from).
- An agent may direct its output (``TurnResult.handoff``, one directive or a
  list; ``to`` may list several targets): then only those targets get it.
  A target is named exactly, by its node id or its key (labels and id
  prefixes are a console's convenience, never an agent's); inside a subflow,
  the key its own file gives comes first (``reviewer`` is ``review/reviewer``). Each must be
  reachable by one of the routes above; otherwise a ``bus.message`` ERROR
  naming the directive, the name and the valid names is recorded and
  default routing applies.
- A turn whose agent wrote DONE (its work is finished), and a turn that
  consumed only reports, route along report routes only: results flow back
  up, and an orchestrator that hears back from its workers does not send them
  the same work again unless it hands off explicitly.
- Otherwise the output goes along every route.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop.contract.base import new_id, utc_now
from desktop.contract.enums import EdgeType
from desktop.contract.state import RunState
from desktop.graph.subflows import scope_of, scoped_key
from desktop.views.node_ref import exact_node

MAX_MESSAGE_CHARS = 20_000


@dataclass(frozen=True)
class Route:
    """One way out of a node: the edge, the target node and what travels."""

    edge_id: str
    target: str
    kind: str  # "handoff" | "report"


def routes_from(state: RunState, node_id: str) -> list[Route]:
    """Every route out of ``node_id``, in edge order, at most one per target."""
    out: list[Route] = []
    seen: set[str] = set()
    for edge in state.edges.values():
        if edge.from_ == node_id:
            route = Route(edge.id, edge.to, EdgeType(edge.type).value)
        elif edge.bidirectional and edge.to == node_id:
            route = Route(edge.id, edge.from_, EdgeType.REPORT.value)
        else:
            continue
        if route.target in state.nodes and route.target not in seen:
            seen.add(route.target)
            out.append(route)
    return out


def _directives(handoff: Any) -> list[dict[str, Any]]:
    """Handoff directives as a list: one dict per target reference."""
    raw = handoff if isinstance(handoff, list) else [handoff] if handoff else []
    out = []
    for entry in raw:
        if not isinstance(entry, dict) or not entry.get("to"):
            continue
        targets = entry["to"] if isinstance(entry["to"], list) else [entry["to"]]
        out.extend({**entry, "to": target} for target in targets)
    return out


def _target(state: RunState, node_id: str, ref: str) -> str | None:
    """The node ``ref`` names for ``node_id``: inside a subflow, a key of the subflow's
    own file (``reviewer``) first names the node of the same subflow."""
    scope = scope_of(state.nodes[node_id].key or "")
    return (scope and exact_node(state, scoped_key(scope, ref))) or exact_node(state, ref)


def _name(state: RunState, node_id: str) -> str:
    return state.nodes[node_id].key or node_id


def _refused(state: RunState, routes: list[Route], number: int, count: int, ref: Any,
             *, known: bool) -> str:
    """Why handoff directive ``number`` of ``count`` cannot be followed, and the names that
    would have been."""
    valid = ", ".join(_name(state, r.target) for r in routes) or "none: it has no edges out"
    why = ("is not connected to this node by an edge" if known else
           "names no node of the run (a handoff names its target by key or id)")
    return (f"handoff directive {number} of {count}: 'to' {str(ref)!r} {why}; the nodes "
            f"this node can hand off to: {valid}. The output went along the node's edges "
            "instead")


def choose_routes(state: RunState, node_id: str, *, handoff: Any, done: bool,
                  consumed_kinds: set[str]
                  ) -> tuple[list[tuple[Route, dict[str, Any] | None]], str | None]:
    """The routes this turn's output takes (each with its directive), and a problem or None."""
    routes = routes_from(state, node_id)
    problem = None
    directives = _directives(handoff)
    if directives:
        chosen: list[tuple[Route, dict[str, Any] | None]] = []
        for number, directive in enumerate(directives, 1):
            target = _target(state, node_id, str(directive["to"]))
            route = next((r for r in routes if r.target == target), None)
            if route is None:
                problem = _refused(state, routes, number, len(directives), directive["to"],
                                   known=target is not None)
                break
            chosen.append((route, directive))
        else:
            return chosen, None
    # Finished work, and turns that only heard back from others, report upward only.
    if done or (consumed_kinds and consumed_kinds <= {"report"}):
        return [(r, None) for r in routes if r.kind == "report"], problem
    return [(r, None) for r in routes], problem


def _status(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {"ok": bool(value.get("ok", True)), **({"reason": str(value["reason"])}
                                                      if value.get("reason") else {})}
    if isinstance(value, bool):
        return {"ok": value}
    if isinstance(value, str) and value:
        return {"ok": value.lower() not in {"fail", "failed", "error", "blocked"},
                "reason": value}
    return {"ok": True}


def _artifact_refs(values: Any) -> list[dict[str, str]]:
    refs = []
    for value in values or []:
        if isinstance(value, dict) and value.get("ref"):
            refs.append({"type": str(value.get("type", "file")), "ref": str(value["ref"])})
        elif isinstance(value, str):
            refs.append({"type": "file", "ref": value})
    return refs


def build_envelope(route: Route, from_node: str, output_text: str,
                   handoff: dict[str, Any] | None, agent_run_id: str | None,
                   artifacts: list[dict[str, str]], commit: str | None = None
                   ) -> dict[str, Any]:
    """The wire form of the envelope sent along ``route`` (``commit``: the sender's, when
    it works in its own git worktree)."""
    handoff = handoff or {}
    message = handoff.get("message") or output_text
    payload: dict[str, Any] = {
        "message": message[:MAX_MESSAGE_CHARS],
        "structured": handoff.get("structured") if isinstance(handoff.get("structured"),
                                                                dict) else {},
        "artifacts": artifacts + _artifact_refs(handoff.get("artifacts")),
        "status": _status(handoff.get("status")),
    }
    if route.kind == "handoff":
        payload["response"] = {"expectation": "report", "replyTo": from_node}
    envelope = {"kind": route.kind, "id": new_id(), "fromNodeId": from_node,
                "toNodeId": route.target, "createdAt": utc_now(), "payload": payload}
    if agent_run_id:
        envelope["fromAgentRunId"] = agent_run_id
    if commit:
        envelope["commit"] = commit
    return envelope


def route_events(route: Route, envelope: dict[str, Any]) -> list[dict[str, Any]]:
    """``handoff.sent`` from the sender and ``inbox.queued`` at the target."""
    item = {"id": new_id(), "kind": route.kind, "text": envelope["payload"]["message"],
            "envelope": envelope, "queuedAt": envelope["createdAt"]}
    return [
        {"type": "handoff.sent", "nodeId": envelope["fromNodeId"], "envelope": envelope,
         "edgeId": route.edge_id},
        {"type": "inbox.queued", "nodeId": route.target, "item": item},
    ]
