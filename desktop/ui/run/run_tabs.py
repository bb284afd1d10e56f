"""A run opened from Run history is shown with its own graph: the one its first event
(``run.created``) recorded. When that graph is the window's own, the run is shown there
(its statuses over the same nodes); when another tab shows that graph, the run goes to
that tab, brought to the front; otherwise in a tab of its own (a window of its own
when the window is not tabbed), whose name, counts and canvas are the run's. A run of
another machine's service has no folder here: it is shown in the window as it is.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.graph.document import WorkflowDocument
from desktop.ui.editor import fill_missing_positions
from desktop.views.rerun import document_of_run

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


def graph_of(doc: WorkflowDocument) -> tuple[frozenset[str], Counter]:
    """What makes two documents the same graph: node ids and edges (from, to, type)."""
    return (frozenset(n.id for n in doc.nodes),
            Counter((e.from_, e.to, str(e.type)) for e in doc.edges))


def same_graph(a: WorkflowDocument, b: WorkflowDocument) -> bool:
    """True when a run of ``a`` can be drawn over ``b``'s canvas node for node."""
    return graph_of(a) == graph_of(b)


def showing(window: EditorWindow, doc: WorkflowDocument) -> EditorWindow | None:
    """Another tab of ``window``'s tabs that shows ``doc``'s graph (None: none does, or
    the window is not tabbed)."""
    host = window.host
    for other in host.editors() if host is not None else []:
        if other is not window and not other.files.is_blank() \
                and same_graph(doc, other.editor.model.doc):
            return other
    return None


def show_run(window: Any, run_dir: Path, replay: bool = False) -> Any:
    """Show the run in ``window`` when it has the run's graph (or nothing), else in a new
    tab or window with the run's graph; returns the session (None when the run's first
    event cannot be read)."""
    run_dir = Path(run_dir)
    if window.run_panels.remote is not None:  # another machine's run: no folder to read
        return window.run_panels.open_run(run_dir)
    try:
        doc, _workflow_path = document_of_run(run_dir)
    except (OSError, ValueError) as exc:
        window.message(f"Cannot open the run: {exc}", 10000)
        return None
    target = window
    if not window.files.is_blank() and not same_graph(doc, window.editor.model.doc):
        shown = showing(window, doc)
        if shown is not None:  # another tab has this graph: the run goes there
            window.host.tabs.setCurrentWidget(shown)
            target = shown
    if target is window and (window.files.is_blank()
                             or not same_graph(doc, window.editor.model.doc)):
        if not window.files.is_blank():
            target = window.files.document_window()
        target.file.new(fill_missing_positions(doc))
        target.run_origin = run_dir
        target._update_title()
        target.view.fit()
    panels = target.run_panels
    panels.data_dir = window.run_panels.data_dir
    return panels.replay(run_dir) if replay else panels.open_run(run_dir)
