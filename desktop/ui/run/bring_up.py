"""Bring a run forward: the tab (or window) that shows it, else a new tab with its graph.

The inbox lists every live run's requests, including runs no tab shows any more (the
tab was closed and the run kept running, or another client started it). Deciding one
of those brings its run up, so the user sees what the decision set going.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


def window_showing(run_id: str) -> EditorWindow | None:
    """The editor window (tab or window) whose open run is ``run_id``, or None."""
    from desktop.ui.tabs import TAB_WINDOWS
    from desktop.ui.window import OPEN_WINDOWS

    editors = [e for w in TAB_WINDOWS for e in w.editors()] + list(OPEN_WINDOWS)
    for editor in editors:
        session = editor.run_panels.session
        if session is not None and session.run_id == run_id:
            return editor
    return None


def bring_forward(editor: EditorWindow) -> None:
    """Make ``editor``'s tab current and its window the active one."""
    host = editor.host
    if host is not None:
        host.tabs.setCurrentWidget(editor)
        top = host
    else:
        top = editor
    top.show()
    top.raise_()
    top.activateWindow()


def bring_up_run(window: EditorWindow, run_dir: Path, approval_id: str | None = None
                 ) -> EditorWindow | None:
    """Show the run of ``run_dir`` (its tab, or a new one beside editor window
    ``window``'s), and open request ``approval_id``'s dialog there; the editor window that
    shows it (None when the run cannot be read)."""
    from desktop.ui.run.run_tabs import show_run

    editor = window_showing(Path(run_dir).name)
    if editor is None:
        # never over the window's own run: a run it shows stays where it is
        blank = window.files.is_blank() and window.run_panels.session is None
        editor = window if blank else window.files.document_window()
        editor.run_panels.data_dir = window.run_panels.data_dir
        if show_run(editor, Path(run_dir)) is None:
            return None
    bring_forward(editor)
    if approval_id is not None:
        approvals = editor.run_panels.approvals
        editor.run_panels.when_loaded(lambda: approvals.open_request(approval_id))
    return editor
