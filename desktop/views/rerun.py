"""The workflow a past run started from, to run it again (no Qt)."""

from __future__ import annotations

from pathlib import Path

from desktop.graph.document import Position, WorkflowDocument, WorkflowEdge, WorkflowNode
from desktop.views.logfile import LogFile


def document_from_created(created: dict) -> WorkflowDocument:
    """Rebuild the document from a ``run.created`` event (run-time additions left out)."""
    nodes = created.get("nodes") or {}
    configs = created.get("nodeConfigs") or {}
    key_of = {nid: n.get("key") or nid for nid, n in nodes.items()}
    doc_nodes, doc_configs = [], {}
    for nid, n in nodes.items():
        if n.get("addedAtRuntime"):
            continue
        pos = n.get("position")
        doc_nodes.append(WorkflowNode(
            id=key_of[nid], label=n.get("label", ""), roleTemplate=n.get("roleTemplate",
                                                                         "implementer"),
            provider=n.get("provider", "scripted"), capabilities=n.get("capabilities"),
            permissions=n.get("permissions"), entry=bool(n.get("entry")),
            position=Position(x=pos[0], y=pos[1]) if pos else None))
        if nid in configs:
            doc_configs[key_of[nid]] = configs[nid]
    edges = [WorkflowEdge(**{"from": key_of.get(e.get("from"), e.get("from")),
                             "to": key_of.get(e.get("to"), e.get("to")),
                             "type": e.get("type", "handoff"), "label": e.get("label"),
                             "bidirectional": bool(e.get("bidirectional"))})
             for e in (created.get("edges") or {}).values() if not e.get("addedAtRuntime")]
    return WorkflowDocument(name=created.get("workflowName") or "Workflow",
                            task=created.get("task", ""), mode=created.get("mode", "AUTO"),
                            globalMode=created.get("globalMode", "IMPLEMENTATION"),
                            isolation=created.get("isolation"),
                            executor=created.get("executor") or "local",
                            budget=created.get("budget"),
                            nodes=doc_nodes, nodeConfigs=doc_configs, edges=edges)


def document_of_first(first: dict, where: str) -> tuple[WorkflowDocument, str | None]:
    """The graph and workflow file path of a run whose first event is ``first`` (read from
    its folder or a page of the API); ValueError naming ``where`` when it is no
    ``run.created``."""
    if first.get("type") != "run.created":
        raise ValueError(f"{where}: the log does not start with run.created")
    return document_from_created(first), first.get("workflowPath")


def document_of_run(run_dir: Path) -> tuple[WorkflowDocument, str | None]:
    """The graph the run started with (exactly as recorded) and its workflow file path."""
    log = LogFile(Path(run_dir) / "events.jsonl")
    try:
        created = log.get(1) or {}
    finally:
        log.close()
    return document_of_first(created, str(run_dir))
