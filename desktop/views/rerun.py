"""The workflow a past run started from, to run it again (no Qt)."""

from __future__ import annotations

from pathlib import Path

from desktop.graph.document import Position, WorkflowDocument, WorkflowEdge, WorkflowNode
from desktop.views.logfile import LogFile


def document_from_created(created: dict, scope: str | None = None) -> WorkflowDocument:
    """Rebuild the document from a ``run.created`` event (run-time additions left out).

    ``scope``: the id of a subflow node, for the graph inside it (keys as its own file
    gives them); None for the run's own graph. The nodes inside subflows are left out.
    """
    every = created.get("nodes") or {}
    nodes = {nid: n for nid, n in every.items() if n.get("parent") == scope}
    configs = created.get("nodeConfigs") or {}
    prefix = f"{every[scope].get('key')}/" if scope in every else ""
    key_of = {nid: (n.get("key") or nid).removeprefix(prefix) for nid, n in nodes.items()}
    doc_nodes, doc_configs = [], {}
    for nid, n in nodes.items():
        if n.get("addedAtRuntime"):
            continue
        pos = n.get("position")
        sub = {"kind": "subflow", "flow": n["subflow"]} if n.get("subflow") else {}
        entry = bool(n.get("entry")) or (scope in every and
                                         every[scope].get("subflowEntry") == nid)
        doc_nodes.append(WorkflowNode(**sub,
            id=key_of[nid], label=n.get("label", ""), roleTemplate=n.get("roleTemplate",
                                                                         "implementer"),
            provider=n.get("provider", "scripted"), capabilities=n.get("capabilities"),
            permissions=n.get("permissions"), entry=entry,
            position=Position(x=pos[0], y=pos[1]) if pos else None))
        if nid in configs:
            doc_configs[key_of[nid]] = configs[nid]
    edges = [WorkflowEdge(**{"from": key_of[e["from"]], "to": key_of[e["to"]],
                             "type": e.get("type", "handoff"), "label": e.get("label"),
                             "bidirectional": bool(e.get("bidirectional"))})
             for e in (created.get("edges") or {}).values()
             if not e.get("addedAtRuntime") and e.get("from") in key_of
             and e.get("to") in key_of]
    return WorkflowDocument(name=created.get("workflowName") or "Workflow",
                            description=created.get("description", "") if scope is None
                            else "",
                            task=created.get("task", ""), mode=created.get("mode", "AUTO"),
                            globalMode=created.get("globalMode", "IMPLEMENTATION"),
                            isolation=created.get("isolation"),
                            workspace=created.get("workspace") if scope is None else None,
                            worktreeSetup=created.get("worktreeSetup") if scope is None
                            else None,
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
