"""Before a run starts: the workflow is checked by the validator the CLI and the service use,
and a workflow with errors is refused here, with its problems shown and fixes offered.

The window's parts (:class:`WindowParts`) it uses when they are there: ``info`` (a bar
with buttons above the canvas), ``problems`` and ``problems_dock`` (the problems panel),
``editor`` (to remove edges to missing nodes, undoably) and ``message``. Without them the
refusal is a message box.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMainWindow, QMessageBox

from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import Problem
from desktop.graph.validate import validate
from desktop.ui.problems import is_no_nodes
from desktop.ui.run.window_parts import WindowParts
from desktop.wording import plural

EMPTY_REFUSAL = ("Nothing to run yet: the workflow has no agent. Add one first: double-click "
                 "the canvas, press Add Node, or drag a role from the Palette.")


def run_errors(doc: WorkflowDocument) -> list[Problem]:
    """The errors that make ``doc`` unrunnable (what `agent-canvas run` exits 2 on)."""
    return [p for p in validate(doc) if p.is_error]


def dangling_edge_keys(model: Any) -> list[str]:
    """Keys of the document's edges whose ends name no node."""
    ids = set(model.node_ids())
    return [key for key in model.edge_keys()
            if model.edge(key).from_ not in ids or model.edge(key).to not in ids]


class Preflight:
    """Refuses a workflow with errors in ``window``, says why and offers the fixes."""

    def __init__(self, window: QMainWindow, parts: WindowParts) -> None:
        self.window = window
        self.parts = parts
        self.refused: list[Problem] = []  # the errors of the last refusal
        self.box: QMessageBox | None = None

    def refuse(self, doc: WorkflowDocument) -> bool:
        """True (and the problems shown) when ``doc`` must not run."""
        panel = self.parts.problems
        errors = [*(panel.left_out if panel is not None else []), *run_errors(doc)]
        self.refused = errors
        if not errors:
            return False
        if all(is_no_nodes(p, doc) for p in errors):
            # nothing drawn yet is no mistake of the user's: say what to do, not "1 error"
            self._say(EMPTY_REFUSAL, [], EMPTY_REFUSAL)
            return True
        first = errors[0]
        where = panel.describe(first.location) if panel is not None else first.location
        text = (f"Not started: the workflow has {plural(len(errors), 'error')}. "
                f"{where}: {first.message}" + (f" — {first.hint}" if first.hint else ""))
        choices: list[tuple[str, object]] = [("Show Problems", self.show_problems)]
        editor = self.parts.editor
        dangling = dangling_edge_keys(editor.model) if editor is not None else []
        if dangling:
            choices.append((f"Remove {plural(len(dangling), 'Edge')} to Missing Nodes",
                            self.remove_dangling))
        self._say(text, choices, f"{text}\n\n" + "\n".join(str(p) for p in errors))
        if self.parts.info is not None:
            self.show_problems()
        return True

    def _say(self, text: str, choices: list[tuple[str, object]], whole: str) -> None:
        """``text`` and its ``choices`` above the canvas; without that bar, ``whole`` in a
        message box."""
        if self.parts.info is not None:
            self.parts.info.ask(text, choices)
            return
        self.box = QMessageBox(QMessageBox.Icon.Warning, "Cannot start the run", whole,
                               QMessageBox.StandardButton.Ok, self.window)
        self.box.open()  # not exec(): no nested event loop inside an asyncio task

    def show_problems(self) -> None:
        """Bring the problems panel forward and select what the first error is about."""
        dock = self.parts.problems_dock
        if dock is not None:
            dock.show()
            dock.raise_()
        panel = self.parts.problems
        if panel is None:
            return
        panel.refresh()
        for row, problem in enumerate(panel.problems):
            if problem.is_error:
                panel.setCurrentItem(panel.topLevelItem(row))
                panel.itemActivated.emit(panel.topLevelItem(row), 0)
                break

    def remove_dangling(self) -> None:
        """Delete every edge to a missing node (one undoable step)."""
        editor = self.parts.editor
        if editor is None:
            return
        keys = dangling_edge_keys(editor.model)
        if keys:
            editor.delete([], keys)
        if self.parts.problems is not None:
            self.parts.problems.refresh()
        if self.parts.message is not None:
            self.parts.message(f"Removed {plural(len(keys), 'edge')} to missing nodes "
                               "(Ctrl+Z undoes it)")
