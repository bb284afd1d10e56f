"""Opening a subflow node of the window's graph: from the run shown, else from its file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import load_workflow
from desktop.graph.subflows import subflow_path
from desktop.views.rerun import document_from_created
from desktop.views.subflows import inner_nodes, local_key

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


def run_scope(state: dict | None, inside: str | None, key: str) -> str | None:
    """The run's id of node ``key`` of the graph inside ``inside`` (None: the top)."""
    for node_id in inner_nodes(state, inside):
        if local_key(state, node_id) == key:
            return node_id
    return None


def open_subflow(window: EditorWindow, node_id: str) -> bool:
    """Show the graph inside subflow node ``node_id`` of the graph shown (a level deeper
    when a subflow is open already); False, with the reason in the status bar, when it
    cannot be read."""
    pane = window.subflows
    level = pane.level
    model = level.view.canvas().model if level is not None else window.editor.model
    node = model.node(node_id)
    if node is None or node.kind != "subflow" or not node.flow:
        return False
    session = window.run_panels.session
    state = session.state if session is not None else None
    scope = run_scope(state, level.scope if level is not None else None, node_id)
    file = None
    if scope is not None and (state or {}).get("nodes", {}).get(scope, {}).get("subflow"):
        doc = document_from_created(state or {}, scope)
    else:
        scope = None
        base = level.file if level is not None else window.file.path
        if base is None and not Path(node.flow).is_absolute():
            window.message("Save the workflow first: the subflow's path is relative to it.")
            return False
        file = subflow_path(base, node.flow) if base is not None else Path(node.flow)
        try:
            doc = load_workflow(file)
        except WorkflowLoadError as exc:
            window.message(f"Cannot open the subflow: {exc.problems[0]}")
            return False
    view = pane.open(doc, node.label or node.id, file=file, scope=scope, state=state,
                     source=session.bridge.projection if session is not None else None)
    view.subflowOpened.connect(lambda inner: open_subflow(window, inner))
    window.view.hide()
    return True
