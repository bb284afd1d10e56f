"""The editor window's File commands: new, open, recent, examples, save, revert, close, quit.

:class:`FileCommands` is ``window.files``. Opening puts a workflow in this window when it
is blank, else in a new tab beside it (a new window when this one is not tabbed).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from desktop.graph.errors import Problem, WorkflowLoadError
from desktop.graph.io import WORKFLOW_SUFFIX
from desktop.graph.lenient import repairs_text
from desktop.graph.resources import examples_dir
from desktop.ui.settings import add_recent, recent_files
from desktop.ui.window_questions import FLOW_FILTER

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenu

    from desktop.graph.templates import Template
    from desktop.ui.window import EditorWindow


class FileCommands:
    """The documents of one editor window: opening, saving and closing them."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window

    # ---------------------------------------------------------------- where documents go
    def is_blank(self) -> bool:
        """True when the window shows an untitled, unchanged, empty workflow."""
        w = self.window
        return w.file.path is None and not w.file.is_modified() and not w.editor.model.doc.nodes

    def document_window(self) -> EditorWindow:
        """A new, empty document beside this one: a tab of this window's tabs, or a
        window of its own when this one is not tabbed."""
        from desktop.ui.window import EditorWindow

        other = EditorWindow()
        if self.window.host is not None:
            return self.window.host.add(other)
        other.show()
        return other

    # ---------------------------------------------------------------- new
    def new(self) -> None:
        """A new untitled workflow (this window stays as it is when it is blank)."""
        if not self.is_blank():
            self.document_window()

    def new_from_template(self) -> None:
        """A new workflow from the template the user picks in the gallery."""
        template = self.window.ask.template()
        if template is not None:
            self.open_template(template)

    def open_template(self, template: Template) -> None:
        """A new, untitled workflow copied from ``template`` (here when this window is
        blank, else in a new window); Save asks where it goes."""
        target = self.window if self.is_blank() else self.document_window()
        target.file.new(template.new_document())
        target.show()
        target.view.fit()
        target.message(f"New workflow from “{template.title}”: save it to keep it")

    def new_window(self) -> None:
        """A new window (with tabs when this one has them) with an untitled workflow."""
        from desktop.ui.window import EditorWindow

        if self.window.host is None:
            EditorWindow().show()
            return
        from desktop.ui.tabs import tabbed

        tabbed(EditorWindow())

    # ---------------------------------------------------------------- open
    def open(self) -> None:
        """Ask for a workflow and open it (in a new tab unless this window is blank)."""
        path = self.window.ask.open_path()
        if path:
            self.open_in_window(path)

    def open_new_window(self) -> None:
        """Open a workflow in a window of its own (its own tabs)."""
        path = self.window.ask.open_path()
        if not path:
            return
        from desktop.ui.tabs import tabbed
        from desktop.ui.window import EditorWindow

        other = EditorWindow()
        if other.files.open_path(path):
            tabbed(other)
        else:
            other.discard()

    def open_path(self, path: str | Path) -> bool:
        """Open ``path`` in this window; False (and the problems shown) when it cannot."""
        w = self.window
        try:
            w.file.open(path)
        except WorkflowLoadError as exc:
            w.show_error("Cannot open workflow", "\n".join(str(p) for p in exc.problems))
            return False
        w.compare.stop()  # another document: the comparison was about the last one
        add_recent(w.file.path)
        w.info.hide()
        w.view.fit()
        w.message(f"Opened {w.file.path}")
        if w.file.left_out:
            self._say_left_out(w.file.left_out)
        return True

    def _say_left_out(self, problems: list[Problem]) -> None:
        """A file opened with wrong fields: say so above the canvas, and list them."""
        self.window.info.ask(
            f"Opened with {repairs_text(problems)}, listed in Problems and "
            "marked on the canvas. Fix them here and save; until then the workflow does "
            "not run.", [("Show Problems", self._show_problems)])
        self._show_problems()

    def _show_problems(self) -> None:
        self.window.docks["problems"].show()
        self.window.docks["problems"].raise_()

    def open_in_window(self, path: str | Path) -> None:
        """Open in this window when it is blank, else in a new tab (a new window when this
        one is not tabbed)."""
        if self.is_blank():
            self.open_path(path)
            return
        if self.window.host is not None:
            self.window.host.open_tab(path)
            return
        from desktop.ui.window import EditorWindow

        other = EditorWindow()
        if other.files.open_path(path):
            other.show()
        else:
            other.discard()

    def open_evaluation(self) -> None:
        """Ask for the --out folder of ``eval run`` and show its evaluation."""
        folder = self.window.ask.folder("Open Evaluation (the --out folder of eval run)")
        if folder:
            from desktop.ui.run.evaluations import open_evaluation

            # a case's run has its own graph (the baseline's or the new workflow's): it
            # shows with that graph, in a tab of its own when it is not this window's
            open_evaluation(self.window, folder, self.window.show_run, self.window.show_error)

    def fill_recent(self, menu: QMenu) -> None:
        """Fill ``menu`` (Open Recent) with the recently opened workflows."""
        menu.clear()
        files = recent_files()
        for path in files:
            menu.addAction(Path(path).name,
                           lambda p=path: self.open_in_window(p)).setToolTip(path)
        if not files:
            menu.addAction("(none)").setEnabled(False)

    def fill_examples(self, menu: QMenu) -> None:
        """Fill ``menu`` (Open Example) with the example workflows."""
        menu.clear()
        for path in sorted(examples_dir().glob("*.flow.yaml")):
            menu.addAction(path.name.removesuffix(".flow.yaml"),
                           lambda p=path: self.open_in_window(p))

    # ---------------------------------------------------------------- save
    def save(self) -> bool:
        """Save to the workflow's file (asking where when it has none); True when saved."""
        if self.window.file.path is None:
            return self.save_as()
        return self._save_to(self.window.file.path)

    def save_as(self) -> bool:
        """Ask where to save, and save there; True when saved."""
        w = self.window
        suggested = (w.file.path.name if w.file.path
                     else slug(w.editor.model.doc.name) + WORKFLOW_SUFFIX)
        path = w.ask.save_path("Save Workflow As", suggested, FLOW_FILTER)
        if not path:
            return False
        if not path.endswith((".yaml", ".yml")):
            path += WORKFLOW_SUFFIX
        return self._save_to(path)

    def _save_to(self, path: str | Path) -> bool:
        w = self.window
        try:
            saved = w.file.save(path)
        except OSError as exc:
            w.show_error("Cannot save", f"{path}: {exc.strerror or exc}")
            return False
        add_recent(saved)
        w.info.hide()
        w.message(f"Saved {saved}")
        return True

    def revert(self) -> None:
        """Throw away the unsaved changes: back to the file as saved."""
        if self.window.file.is_modified():
            self.window.file.revert()
            self.window.message("Reverted to the saved file")

    def changed_on_disk(self, path: str) -> None:
        """Another program changed the file: offer to reload it."""
        note = " You have unsaved changes." if self.window.file.is_modified() else ""
        self.window.info.ask(f"{Path(path).name} was changed by another program.{note}",
                             [("Reload", self.reload_from_disk), ("Keep Mine", lambda: None)])

    def reload_from_disk(self) -> None:
        """Read the workflow's file again."""
        if self.window.file.path is not None:
            self.open_path(self.window.file.path)

    # ---------------------------------------------------------------- close
    def close(self) -> None:
        """Close this workflow: its window, or its tab (the window's close asks first)."""
        self.window.close()

    def quit(self) -> None:
        """Close every window, after one question about what is unsaved or running."""
        from desktop.ui.closing import settle
        from desktop.ui.tabs import TAB_WINDOWS
        from desktop.ui.window import OPEN_WINDOWS

        # One question for every unsaved document and live run of every window, before
        # anything closes: Cancel (or a save that did not happen) leaves every tab open.
        windows = [*TAB_WINDOWS, *(w for w in OPEN_WINDOWS if w.host is None)]
        editors = [e for w in windows for e in (w.editors() if w in TAB_WINDOWS else [w])]
        if not settle(editors,
                      lambda unsaved, live: self.window.ask.closing(unsaved, live, True)):
            return
        # The app ends when the last window has closed (app.until_every_window_closed).
        # A window with a live run closes a moment later, once it has let go of the run.
        for window in windows:
            if not window.close() and window.keeps_unsaved_work():
                return


def slug(name: str) -> str:
    """``my-workflow`` for "My workflow!": a file name made of a workflow's name."""
    out = "".join(ch.lower() if ch.isalnum() else "-" for ch in name).strip("-")
    while "--" in out:
        out = out.replace("--", "-")
    return out or "workflow"
