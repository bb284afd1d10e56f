"""The questions the editor window asks in dialogs: save changes, a live run, file paths.

Each is one small method of :class:`Questions` (``window.ask``), so that tests answer them
instead of a person.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QMessageBox

from desktop.graph.io import WORKFLOW_SUFFIX
from desktop.ui.dialog_size import readable_box

if TYPE_CHECKING:
    from desktop.graph.history import FlowCommit
    from desktop.graph.templates import Template
    from desktop.ui.close_dialog import CloseAnswer, LiveRun
    from desktop.ui.window import EditorWindow

FLOW_FILTER = f"Workflows (*{WORKFLOW_SUFFIX});;YAML (*.yaml *.yml);;All files (*)"


class Questions:
    """The dialogs of one editor window, each returning the user's answer."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window

    def _folder(self) -> Path:
        """Where file dialogs start: the open workflow's folder, else the working folder."""
        path = self.window.file.path
        return path.parent if path else Path.cwd()

    def save_changes(self) -> str:
        """Closing an unsaved document: ``"save"``, ``"discard"`` or ``"cancel"``."""
        box = QMessageBox(self.window)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setText(f"Save changes to “{self.window.document_name()}” before closing?")
        box.setInformativeText("Your changes are lost if you don't save them.")
        readable_box(box)
        box.setStandardButtons(QMessageBox.StandardButton.Save
                               | QMessageBox.StandardButton.Discard
                               | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(answer, "cancel")

    def live_run(self) -> str:
        """Closing over a live run: ``"keep"`` it running, ``"stop"`` it, or ``"cancel"``."""
        from desktop.ui.close_dialog import ask_live_run
        from desktop.ui.closing import live_run_of

        return ask_live_run(self.window, live_run_of(self.window))

    def closing(self, unsaved: list[str], live: list[LiveRun], quitting: bool
                ) -> CloseAnswer | None:
        """One question for many documents and runs: a CloseAnswer, or None (Cancel)."""
        from desktop.ui.close_dialog import ask_closing

        return ask_closing(self.window.host or self.window, unsaved, live, quitting)

    def open_path(self, caption: str = "Open Workflow", filters: str = FLOW_FILTER) -> str:
        """A file to open ("" when cancelled)."""
        return QFileDialog.getOpenFileName(self.window, caption, str(self._folder()),
                                           filters)[0]

    def save_path(self, caption: str, suggested: str, filters: str) -> str:
        """Where to save, starting from ``suggested`` ("" when cancelled)."""
        return QFileDialog.getSaveFileName(self.window, caption,
                                           str(self._folder() / suggested), filters)[0]

    def folder(self, caption: str) -> str:
        """A folder ("" when cancelled)."""
        return QFileDialog.getExistingDirectory(self.window, caption, str(self._folder()))

    def template(self) -> Template | None:
        """The template picked in the gallery, or None."""
        from desktop.ui.template_gallery import TemplateGallery

        gallery = TemplateGallery(self.window, self.window.theme)
        try:
            return gallery.chosen() if gallery.exec() else None
        finally:
            gallery.deleteLater()

    def commits(self, commits: list[FlowCommit], name: str) -> list[FlowCommit]:
        """Which of a workflow's commits to compare ([] when cancelled)."""
        from desktop.ui.compare_history import ask_commits

        return ask_commits(self.window, commits, name)
