"""The editor window's import and export commands: Mermaid in and out, PNG and SVG out.

:class:`ExportCommands` is ``window.exports``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.graph.io import WORKFLOW_SUFFIX
from desktop.ui.window_files import slug

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


class ExportCommands:
    """Turning the window's workflow into other formats, and Mermaid into a workflow."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window

    def import_mermaid(self) -> None:
        """Replace the workflow with a Mermaid flowchart's graph (one undoable step)."""
        from desktop.graph.mermaid import from_mermaid

        w = self.window
        path = w.ask.open_path("Import Mermaid", "Mermaid (*.mmd *.mermaid *.md);;All (*)")
        if not path:
            return
        try:
            doc = from_mermaid(Path(path).read_text(encoding="utf-8"), Path(path).stem)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            w.show_error("Cannot import Mermaid", f"{path}: {exc}")
            return
        w.editor.replace_document(doc, "Import Mermaid")
        w.view.fit()

    def export_mermaid(self) -> None:
        """Write the workflow as a Mermaid flowchart."""
        from desktop.graph.export import write_export

        self._export("Export Mermaid", ".mmd", "Mermaid (*.mmd)",
                     lambda path: write_export(self.window.editor.model.doc, "mermaid", path))

    def export_png(self) -> None:
        """Write the canvas as a PNG image."""
        from desktop.ui.export_image import export_png

        self._export("Export PNG", ".png", "PNG image (*.png)",
                     lambda path: export_png(self.window.scene, path))

    def export_svg(self) -> None:
        """Write the canvas as an SVG image."""
        from desktop.ui.export_image import export_svg

        self._export("Export SVG", ".svg", "SVG image (*.svg)",
                     lambda path: export_svg(self.window.scene, path,
                                             self.window.editor.model.doc.name))

    def _export(self, caption: str, suffix: str, filters: str,
                write: Callable[[str], object]) -> None:
        """Ask where (the file name ends in ``suffix``), then ``write`` there."""
        w = self.window
        stem = (w.file.path.name.removesuffix(WORKFLOW_SUFFIX) if w.file.path
                else slug(w.editor.model.doc.name))
        path = w.ask.save_path(caption, stem + suffix, filters)
        if not path:
            return
        if not path.endswith(suffix):
            path += suffix
        try:
            write(path)
        except OSError as exc:
            w.show_error(f"Cannot {caption.lower()}", f"{path}: {exc.strerror or exc}")
            return
        w.message(f"Exported {path}")
