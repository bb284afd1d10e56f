"""The problems panel: the document's validation problems, kept current as it changes.

An empty workflow is not a mistake of the user's: the validator's "the workflow has no
nodes" (why `agent-canvas validate` and Run refuse it) is not listed or counted as an
error here; the panel says what to do instead (:data:`NOTHING_YET`)."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import Problem
from desktop.graph.validate import validate
from desktop.ui.document import DocumentModel
from desktop.ui.empty_state import over_view
from desktop.ui.theme import Theme

_INDEX = re.compile(r"^(nodes|edges)\[(\d+)\]")
_CONFIG = re.compile(r"^nodeConfigs\.([^.]+)")
VALIDATE_DELAY_MS = 250
NO_PROBLEMS = "No problems. Errors and warnings in the workflow show here as you edit it."
NOTHING_YET = ("Nothing to run yet. Add an agent: double-click the canvas, press Add Node, "
               "drag a role from the Palette, or start from File > New from Template.")
"""What the panel says of a workflow with no node, in place of an error."""


def is_no_nodes(problem: Problem, doc: WorkflowDocument) -> bool:
    """True for the validator's "the workflow has no nodes" of a workflow with none."""
    return not doc.nodes and problem.location == "nodes" and problem.is_error


def target_of(model: DocumentModel, location: str) -> tuple[list[str], list[str]]:
    """The node ids and edge keys a problem location points at."""
    m = _INDEX.match(location)
    if m:
        index = int(m.group(2))
        if m.group(1) == "nodes" and index < len(model.doc.nodes):
            return [model.doc.nodes[index].id], []
        keys = model.edge_keys()
        if m.group(1) == "edges" and index < len(keys):
            return [], [keys[index]]
    m = _CONFIG.match(location)
    if m and model.has_node(m.group(1)):
        return [m.group(1)], []
    return [], []


class ProblemsPanel(QTreeWidget):
    """Lists problems; activating one asks for its node or edge to be selected."""

    selectRequested = Signal(list, list)
    problemsChanged = Signal(list)

    def __init__(self, model: DocumentModel, theme: Theme, parent=None):
        super().__init__(parent)
        self.model = model
        self.theme = theme
        self.problems: list[Problem] = []
        self.left_out: list[Problem] = []  # wrong fields the file had, until it is saved
        self.nothing_yet = False  # the workflow has no node: nothing to run, no error
        self.setHeaderLabels(["", "Where", "Problem"])
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setColumnWidth(0, 28)
        self.setColumnWidth(1, 190)
        self.setAlternatingRowColors(False)
        self.empty = over_view(self.viewport(), NO_PROBLEMS, "problemsEmpty")
        self._timer = QTimer(self, singleShot=True, interval=VALIDATE_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        # An edit is validated once typing pauses; a whole new document (opened, reverted,
        # a run's graph shown) at once, so the problems of the one it replaced are never
        # shown over it, not even for the pause.
        self._just_reset = False
        model.documentReset.connect(self._on_reset)
        model.changed.connect(self._on_change)
        self.itemActivated.connect(self._activate)
        self.itemClicked.connect(self._activate)
        self.refresh()

    def _on_reset(self) -> None:
        self._just_reset = True  # the `changed` that follows a reset needs no second pass
        self.refresh()

    def _on_change(self) -> None:
        if self._just_reset:
            self._just_reset = False
            return
        self._timer.start()

    def set_left_out(self, problems: list[Problem]) -> None:
        """The wrong fields left out when the file was opened: listed until it is saved."""
        self.left_out = list(problems)
        self.refresh()

    def refresh(self) -> None:
        """Validate now and show the result."""
        self._timer.stop()
        doc = self.model.doc
        found = validate(doc)
        self.nothing_yet = not doc.nodes
        self.problems = [*self.left_out, *(p for p in found if not is_no_nodes(p, doc))]
        self.clear()
        for p in self.problems:
            where = self.describe(p.location)
            item = QTreeWidgetItem(["●", where, p.message + (f" — {p.hint}" if p.hint else "")])
            item.setForeground(0, QColor(self.theme.error if p.is_error else self.theme.warning))
            item.setToolTip(2, f"{p.message}\n{p.hint}" if p.hint else p.message)
            item.setData(0, Qt.ItemDataRole.UserRole, p.location)
            self.addTopLevelItem(item)
        self.empty.setText(NOTHING_YET if self.nothing_yet else NO_PROBLEMS)
        self.empty.setVisible(not self.problems)
        self.problemsChanged.emit(self.problems)

    def describe(self, location: str) -> str:
        """Where a problem is, in words: a node id, "a → b" for an edge, or the field."""
        nodes, edges = target_of(self.model, location)
        found = _INDEX.match(location) or _CONFIG.match(location)
        field = location[found.end():].lstrip(".") if found else ""
        if nodes:
            where = nodes[0]
        elif edges:
            e = self.model.edge(edges[0])
            where = f"{e.from_} → {e.to}"
        else:
            return location or "workflow"
        return f"{where} · {field}" if field else where

    def counts(self) -> tuple[int, int]:
        errors = sum(1 for p in self.problems if p.is_error)
        return errors, len(self.problems) - errors

    def per_node(self) -> dict[str, tuple[int, int]]:
        out: dict[str, list[int]] = {}
        for p in self.problems:
            nodes, _ = target_of(self.model, p.location)
            for node_id in nodes:
                slot = out.setdefault(node_id, [0, 0])
                slot[0 if p.is_error else 1] += 1
        return {k: (v[0], v[1]) for k, v in out.items()}

    def _activate(self, item: QTreeWidgetItem) -> None:
        nodes, edges = target_of(self.model, item.data(0, Qt.ItemDataRole.UserRole))
        if nodes or edges:
            self.selectRequested.emit(nodes, edges)
