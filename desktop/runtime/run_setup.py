"""The first events of a run: its graph from a workflow document, and its task.

Node ids become UUIDs (:func:`desktop.graph.document.node_uuid`), the slug is
kept as the node's ``key``; edge ids come from
:func:`desktop.graph.document.edge_uuid`.
"""

from __future__ import annotations

from typing import Any

from desktop.contract.base import new_id, utc_now
from desktop.contract.enums import EdgeType
from desktop.contract.executor import executor_json
from desktop.contract.state import Capabilities, EdgeState, NodeState, Permissions
from desktop.graph.document import WorkflowDocument, edge_uuid, node_uuid


class SetupError(ValueError):
    """A document that cannot start a run (no nodes, no entry node)."""


def run_created_event(doc: WorkflowDocument, run_id: str, *, mode: str, global_mode: str,
                      workflow_path: str | None) -> dict[str, Any]:
    """The ``run.created`` event of a new run of ``doc``."""
    nodes: dict[str, Any] = {}
    configs: dict[str, Any] = {}
    for wn in doc.nodes:
        node_id = node_uuid(run_id, wn.id)
        node = NodeState(
            id=node_id, run_id=run_id, key=wn.id, label=wn.label or wn.id,
            role_template=wn.role_template, provider=wn.provider,
            capabilities=wn.capabilities or Capabilities(),
            permissions=wn.permissions or Permissions(),
            position=(wn.position.x, wn.position.y) if wn.position else None,
            entry=wn.entry,
        )
        nodes[node_id] = node.to_json_dict()
        configs[node_id] = doc.config(wn.id).to_json_dict()
    edges: dict[str, Any] = {}
    for index, we in enumerate(doc.edges):
        edge_id = edge_uuid(run_id, index, we)
        kind = EdgeType(we.type)
        edge = EdgeState(
            id=edge_id, from_=node_uuid(run_id, we.from_), to=node_uuid(run_id, we.to),
            bidirectional=we.bidirectional, type=kind,
            label=we.label or ("report" if kind is EdgeType.REPORT else "task"),
        )
        edges[edge_id] = edge.to_json_dict()
    event: dict[str, Any] = {
        "type": "run.created", "runId": run_id, "workflowName": doc.name,
        "task": doc.task, "mode": mode, "globalMode": global_mode,
        "nodes": nodes, "nodeConfigs": configs, "edges": edges,
    }
    if workflow_path:
        event["workflowPath"] = workflow_path
    if doc.executor != "local":
        event["executor"] = executor_json(doc.executor)
    if doc.isolation is not None:
        event["isolation"] = str(doc.isolation)
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
