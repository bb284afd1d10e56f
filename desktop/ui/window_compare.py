"""The editor window's compare mode: another workflow's differences drawn on the canvas.

:class:`CompareCommands` is ``window.compare``; it holds the overlay while comparing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from desktop.graph.errors import WorkflowLoadError

if TYPE_CHECKING:
    from desktop.graph.document import WorkflowDocument
    from desktop.ui.canvas.compare_overlay import CompareOverlay
    from desktop.ui.window import EditorWindow


class CompareCommands:
    """Compare With…, Compare With Commit… and Stop Comparing of one editor window."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window
        self.overlay: CompareOverlay | None = None
        """What the canvas shows of the comparison while it is on."""

    def with_file(self) -> None:
        """Ask for another workflow file and compare with it."""
        path = self.window.ask.open_path("Compare With Workflow")
        if path:
            self.with_path(path)

    def with_commit(self) -> None:
        """Ask for one or two commits of the open workflow and compare with them."""
        from desktop.ui.compare_history import compare_with_commit

        compare_with_commit(self.window)

    def with_path(self, path: str | Path) -> bool:
        """Draw on the canvas how this workflow differs from the one at ``path``."""
        from desktop.graph.io import load_workflow

        try:
            other = load_workflow(path)
        except WorkflowLoadError as exc:
            self.window.show_error("Cannot compare", "\n".join(str(p) for p in exc.problems))
            return False
        return self.with_document(other, Path(path).name)

    def with_document(self, other: WorkflowDocument, name: str) -> bool:
        """Draw on the canvas how this workflow differs from ``other`` (named ``name``)."""
        from desktop.graph.flow_diff_text import summary
        from desktop.ui.canvas.compare_overlay import CompareOverlay

        w = self.window
        self.stop()
        self.overlay = CompareOverlay(w.scene, w.inspector, other, name)
        w.actions_["compare_stop"].setEnabled(True)
        w.view.fit(self.overlay.bounds())  # removed nodes in sight too
        w.info.ask(f"Compared with {name}: {summary(self.overlay.diff)}. "
                   "Green: added here, amber: changed, faint red: removed.",
                   [("Stop Comparing", self.stop)])
        return True

    def stop(self) -> None:
        """Take the comparison off the canvas."""
        overlay, self.overlay = self.overlay, None
        self.window.actions_["compare_stop"].setEnabled(False)
        if overlay is not None:
            overlay.stop()
            overlay.deleteLater()
            self.window.info.hide()
