"""The one step of a subflow node: its inbox in as the subflow's task, its output out.

A subflow node takes no agent turn. When it has input, :func:`enter_events` starts
its step (``turn.status started`` takes its inbox) and queues each input item as a
task at the subflow's entry node, with the envelope it came in (so the entry's worktree
merges the commit its sender sent, as for a handoff). The step lasts while any node
inside it has a turn running, an approval pending or something in its inbox. When all
of them are quiet, :func:`finish_events` ends the step (``turn.status completed``) and
sends the output of the subflow's entry node (its last ``output.md``) along the
subflow node's own edges, as any node's output goes
(:func:`desktop.runtime.routing.choose_routes`), with the commit of the entry's branch
(:func:`entry_commit`): where the subflow's work ends up, what the receiver merges.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop.contract.base import new_id, utc_now
from desktop.contract.state import InboxItem, RunState
from desktop.runtime.agent_folder import AGENTS, OUTPUT
from desktop.runtime.git_run import git
from desktop.runtime.routing import MAX_MESSAGE_CHARS, build_envelope, choose_routes, route_events
from desktop.runtime.stall import HEAD_CHARS


def is_subflow(state: RunState, node_id: str) -> bool:
    """Whether ``node_id`` is a subflow node of the run."""
    node = state.nodes.get(node_id)
    return node is not None and node.subflow is not None


def entry_of(state: RunState, node_id: str) -> str:
    """The agent node a subflow node's input goes to and its output comes from: its
    entry node, through nested subflows; ``node_id`` itself for an agent node."""
    seen: set[str] = set()
    while is_subflow(state, node_id) and node_id not in seen:
        seen.add(node_id)
        node_id = state.nodes[node_id].subflow_entry or ""
    return node_id


def _task(item: InboxItem, entry: str) -> dict[str, Any]:
    """``item`` as a task of the subflow's entry, its envelope (the sender and the commit
    it sent) kept and addressed to the entry."""
    task: dict[str, Any] = {"id": new_id(), "kind": "task", "text": item.text,
                            "queuedAt": utc_now()}
    if item.envelope is not None:
        task["envelope"] = {**item.envelope.to_json_dict(), "toNodeId": entry}
    return task


def enter_events(state: RunState, node_id: str) -> list[dict[str, Any]]:
    """Start ``node_id``'s step: take its inbox and queue it at the subflow's entry."""
    items = state.inboxes.get(node_id, [])
    entry = state.nodes[node_id].subflow_entry or ""
    events: list[dict[str, Any]] = [
        {"type": "turn.status", "status": "started", "nodeId": node_id, "turnId": new_id(),
         "attempt": 1, "inboxItemIds": [item.id for item in items]}]
    events += [{"type": "inbox.queued", "nodeId": entry, "item": _task(item, entry)}
               for item in items]
    return events


def finishing(state: RunState, busy: set[str]) -> list[str]:
    """Subflow nodes whose step is running and whose inside (at any depth: a nested step
    that runs counts) has no turn running, approval pending or input waiting, innermost
    first."""
    steps = [nid for nid in state.running_turns if is_subflow(state, nid)]
    if not steps:
        return []
    # Few nodes are active at once: walk up from each instead of down every subflow.
    waiting = {p.node_id for p in state.pending_approvals.values()}
    active = busy | set(state.running_turns) | waiting | {
        nid for nid, items in state.inboxes.items() if items}
    held: set[str] = set()
    for nid in active:
        node = state.nodes.get(nid)
        parent = node.parent if node is not None else None
        while parent is not None and parent not in held:
            held.add(parent)
            above = state.nodes.get(parent)
            parent = above.parent if above is not None else None
    ready = [step for step in steps if step not in held]
    return sorted(ready, key=lambda nid: -(state.nodes[nid].key or "").count("/"))


def output_text(state: RunState, run_dir: Path, node_id: str) -> str:
    """What ``node_id`` last produced: an agent's last ``output.md``; for a subflow node,
    its entry node's output."""
    node_id = entry_of(state, node_id)
    agent_run = state.last_agent_run.get(node_id)
    if not agent_run:
        return ""
    try:
        return (run_dir / AGENTS / agent_run / OUTPUT).read_text(errors="replace")
    except OSError:
        return ""


def entry_commit(state: RunState, node_id: str) -> str | None:
    """The commit of the branch of subflow node ``node_id``'s entry, when the entry works
    in its own git worktree (None otherwise). Blocking: run it on a worker thread."""
    node = state.nodes.get(entry_of(state, node_id))
    record = node.git if node is not None else None
    if record is None:
        return None
    found = git(Path(record.repo), "rev-parse", "--verify", "-q",
                f"refs/heads/{record.branch}^{{commit}}")
    return found.text if found.ok else None


def finish_events(state: RunState, run_dir: Path, node_id: str,
                  commit: str | None = None) -> list[dict[str, Any]]:
    """End ``node_id``'s step and route the subflow's output along its edges (``commit``:
    the entry's, from :func:`entry_commit`, what the receivers merge)."""
    turn = state.running_turns.get(node_id) or {}
    text = output_text(state, run_dir, node_id)[:MAX_MESSAGE_CHARS]
    kinds = {str(item.get("kind")) for item in turn.get("items") or []
             if isinstance(item, dict)}
    events: list[dict[str, Any]] = [
        {"type": "turn.status", "status": "completed", "nodeId": node_id,
         "turnId": turn.get("turnId"), "attempt": turn.get("attempt", 1),
         "outputHead": text[:HEAD_CHARS], "done": False}]
    routes, _problem = choose_routes(state, node_id, handoff=None, done=False,
                                     consumed_kinds=kinds)
    for route, directive in routes:
        envelope = build_envelope(route, node_id, text, directive, None, [], commit)
        events += route_events(route, envelope)
    return events
