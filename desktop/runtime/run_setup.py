"""The first events of a run: its graph from a workflow document, and its task.

Node ids become UUIDs (:func:`desktop.graph.document.node_uuid`), the slug is
kept as the node's ``key``; edge ids come from
:func:`desktop.graph.document.edge_uuid`. The nodes and edges of each subflow
are part of the graph, with keys and edge ids scoped by their subflow node
(``review/implementer``), so the run never reads a subflow file again.
"""

from __future__ import annotations

import os
from typing import Any

from desktop.contract.base import new_id, utc_now
from desktop.contract.enums import EdgeType
from desktop.contract.executor import executor_json
from desktop.contract.isolation import WorktreeSetup
from desktop.contract.state import Capabilities, EdgeState, NodeState, Permissions
from desktop.graph.document import WorkflowDocument, WorkflowNode, edge_uuid, node_uuid
from desktop.graph.subflows import Subflow, scoped_key


class SetupError(ValueError):
    """A document that cannot start a run (no nodes, no entry node)."""


def _node_state(run_id: str, wn: WorkflowNode, key: str, parent: str | None,
                sub: Subflow | None) -> NodeState:
    node = NodeState(
        id=node_uuid(run_id, key), run_id=run_id, key=key, label=wn.label or wn.id,
        role_template=wn.role_template, provider=wn.provider,
        capabilities=wn.capabilities or Capabilities(),
        permissions=wn.permissions or Permissions(),
        position=(wn.position.x, wn.position.y) if wn.position else None,
        entry=wn.entry and parent is None, parent=parent,
    )
    if sub is not None:
        entry = sub.doc.entry_node()
        if entry is None:
            raise SetupError(f"subflow {sub.path} has no entry node: mark one `entry: true`")
        node.subflow = wn.flow
        node.subflow_entry = node_uuid(run_id, scoped_key(key, entry.id))
    return node


def _rebased(workspace: str | None, folder: str) -> str | None:
    """``workspace`` as written in a file in ``folder`` (relative to the top workflow's
    folder), made relative to the top workflow's folder, which the run resolves it against."""
    if folder and workspace and not os.path.isabs(workspace) and \
            not workspace.startswith("~"):
        return os.path.normpath(os.path.join(folder, workspace))
    return workspace


def _config(doc: WorkflowDocument, node_id: str, folder: str, fallback: str | None,
            setup: WorktreeSetup | None) -> dict[str, Any]:
    """The node's config, its workspace rebased to the top workflow's folder; a node
    without one works on ``fallback`` (its workflow's, already rebased), and one without a
    worktree setup takes ``setup`` (its workflow's)."""
    config = doc.config(node_id)
    workspace = _rebased(config.workspace, folder) if config.workspace else fallback
    update: dict[str, Any] = {}
    if workspace != config.workspace:
        update["workspace"] = workspace
    if config.worktree_setup is None and setup is not None:
        update["worktree_setup"] = setup
    return (config.model_copy(update=update) if update else config).to_json_dict()


def graph_of(doc: WorkflowDocument, run_id: str, subflows: dict[str, Subflow],
             scope: str = "", parent: str | None = None, folder: str = "",
             inherited: str | None = None, inherited_setup: WorktreeSetup | None = None
             ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The run's nodes, node configs and edges (wire form, by id) for ``doc`` and the
    subflows it uses, keys scoped by ``scope``; ``folder``: where ``doc``'s file is,
    relative to the top workflow's folder; ``inherited``: the workspace of the workflows
    around ``doc`` (relative to the top workflow's folder), ``inherited_setup`` their
    worktree setup."""
    here = _rebased(doc.workspace, folder) if doc.workspace else inherited
    setup = doc.worktree_setup or inherited_setup
    nodes: dict[str, Any] = {}
    configs: dict[str, Any] = {}
    edges: dict[str, Any] = {}
    for wn in doc.nodes:
        key = scoped_key(scope, wn.id)
        sub = subflows.get(wn.id) if wn.kind == "subflow" else None
        node = _node_state(run_id, wn, key, parent, sub)
        nodes[node.id] = node.to_json_dict()
        configs[node.id] = _config(doc, wn.id, folder, here, setup)
        if sub is not None:
            inner_folder = os.path.normpath(os.path.join(folder, os.path.dirname(wn.flow or "")))
            inner = graph_of(sub.doc, run_id, sub.inner, key, node.id,
                             "" if inner_folder == "." else inner_folder, here, setup)
            for mine, theirs in zip((nodes, configs, edges), inner, strict=True):
                mine.update(theirs)
    for index, we in enumerate(doc.edges):
        scoped = we if not scope else we.model_copy(
            update={"id": scoped_key(scope, we.id or f"{index}:{we.from_}->{we.to}")})
        edge_id = edge_uuid(run_id, index, scoped)
        kind = EdgeType(we.type)
        edge = EdgeState(
            id=edge_id, from_=node_uuid(run_id, scoped_key(scope, we.from_)),
            to=node_uuid(run_id, scoped_key(scope, we.to)),
            bidirectional=we.bidirectional, type=kind,
            label=we.label or ("report" if kind is EdgeType.REPORT else "task"),
        )
        edges[edge_id] = edge.to_json_dict()
    return nodes, configs, edges


def run_created_event(doc: WorkflowDocument, run_id: str, *, mode: str, global_mode: str,
                      workflow_path: str | None,
                      subflows: dict[str, Subflow] | None = None) -> dict[str, Any]:
    """The ``run.created`` event of a new run of ``doc`` (``subflows``: what its subflow
    nodes run, from :func:`desktop.graph.subflows.resolve_subflows`)."""
    missing = [n.id for n in doc.nodes if n.kind == "subflow" and n.id not in (subflows or {})]
    if missing:
        raise SetupError(f"subflow node {missing[0]!r} has no workflow read for it: run the "
                         "workflow from its file, so `flow:` can be found")
    nodes, configs, edges = graph_of(doc, run_id, subflows or {})
    event: dict[str, Any] = {
        "type": "run.created", "runId": run_id, "workflowName": doc.name,
        "task": doc.task, "mode": mode, "globalMode": global_mode,
        "nodes": nodes, "nodeConfigs": configs, "edges": edges,
    }
    if workflow_path:
        event["workflowPath"] = workflow_path
    if doc.description:  # shown with the run's graph when the run is opened again
        event["description"] = doc.description
    if doc.executor != "local":
        event["executor"] = executor_json(doc.executor)
    if doc.isolation is not None:
        event["isolation"] = str(doc.isolation)
    if doc.workspace:
        event["workspace"] = doc.workspace
    if doc.worktree_setup is not None:
        event["worktreeSetup"] = doc.worktree_setup.to_json_dict()
    if doc.budget is not None:
        event["budget"] = doc.budget.to_json_dict()
    return event


def task_event(doc: WorkflowDocument, run_id: str) -> dict[str, Any]:
    """The ``inbox.queued`` event giving the workflow's task to its entry node."""
    entry = doc.entry_node()
    if entry is None:
        raise SetupError("the workflow has no entry node: mark one node `entry: true`")
    item = {"id": new_id(), "kind": "task", "text": doc.task, "queuedAt": utc_now()}
    return {"type": "inbox.queued", "nodeId": node_uuid(run_id, entry.id), "item": item}
