"""The editor window's Edit commands: undo, the clipboard, delete, select, connect, rename,
notes and groups.

:class:`EditCommands` is ``window.edit``. Each command works on the canvas selection and
goes through the Editor, so it is one undoable step.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from PySide6.QtGui import QCursor, QGuiApplication

from desktop.wording import plural

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


class EditCommands:
    """The Edit menu of one editor window."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window

    def undo(self) -> None:
        """Undo the last change."""
        if self.window.editor.editable():  # undoing is changing, too
            self.window.editor.undo_stack.undo()

    def redo(self) -> None:
        """Redo the last undone change."""
        if self.window.editor.editable():
            self.window.editor.undo_stack.redo()

    def copy(self) -> None:
        """Copy the selected nodes to the clipboard."""
        w = self.window
        ids = w.scene.selected_node_ids()
        if not ids:
            return
        # plain workflow YAML: pastes into another window, another process, or a text editor
        QGuiApplication.clipboard().setText(w.editor.copy_text(ids))
        w.message(f"Copied {plural(len(ids), 'node')}")

    def cut(self) -> None:
        """Copy the selected nodes to the clipboard, then delete them."""
        self.copy()
        scene = self.window.scene
        self.window.editor.delete(scene.selected_node_ids(), scene.selected_edge_keys())

    def paste(self) -> None:
        """Paste the clipboard's nodes at the cursor (or where they were)."""
        w = self.window
        if not w.editor.editable():
            return
        ids = w.editor.paste_text(QGuiApplication.clipboard().text(), self.cursor_point())
        if not ids:
            w.message("Nothing to paste: the clipboard holds no workflow nodes")

    def cursor_point(self) -> tuple[float, float] | None:
        """The mouse cursor on the canvas, in scene coordinates (None when it is outside)."""
        view = self.window.view
        local = view.mapFromGlobal(QCursor.pos())
        if not view.viewport().rect().contains(local):
            return None
        p = view.mapToScene(local)
        return p.x(), p.y()

    def duplicate(self) -> None:
        """Copy the selected nodes beside themselves."""
        self.window.editor.duplicate(self.window.scene.selected_node_ids())

    def delete(self) -> None:
        """Delete the selected nodes, edges, notes and groups."""
        scene = self.window.scene
        self.window.editor.delete(scene.selected_node_ids(), scene.selected_edge_keys(),
                                  scene.decorations.selected_keys())

    def _add_point(self) -> tuple[float, float]:
        """Where a new note or group goes: at the cursor, else mid-canvas."""
        point = self.cursor_point()
        if point is None:
            view = self.window.view
            center = view.mapToScene(view.viewport().rect().center())
            point = (center.x(), center.y())
        return point

    def add_note(self) -> None:
        """Add a sticky note and start editing its text."""
        if not self.window.editor.editable():
            return
        scene = self.window.scene
        note_id = self.window.editor.add_note(self._add_point())
        scene.select([])
        scene.decorations.select([("note", note_id)])
        scene.decorations.edit_in_place(scene.decorations.items[("note", note_id)])

    def add_group(self) -> None:
        """Frame the selected nodes in a titled group."""
        if not self.window.editor.editable():
            return
        scene = self.window.scene
        group_id = self.window.editor.add_group(self._add_point(), scene.selected_node_ids())
        scene.select([])
        scene.decorations.select([("group", group_id)])

    def select_all(self) -> None:
        """Select every node and edge."""
        scene = self.window.scene
        scene.select(list(scene.nodes), list(scene.edges))

    def _connect_selected(self, edge_type: str) -> None:
        scene = self.window.scene
        ids = sorted(scene.selected_node_ids(), key=lambda i: scene.nodes[i].pos().x())
        made = [self.window.editor.connect(a, b, edge_type) for a, b in itertools.pairwise(ids)]
        if len(ids) < 2:
            self.window.message("Select two or more nodes to connect them left to right")
        elif not any(made):
            self.window.message("Those nodes are connected already")

    def connect_handoff(self) -> None:
        """Chain the selected nodes left to right with handoff edges."""
        self._connect_selected("handoff")

    def connect_report(self) -> None:
        """Chain the selected nodes left to right with report edges."""
        self._connect_selected("report")

    def rename(self) -> None:
        """Put the cursor in the selected node's name in the inspector."""
        w = self.window
        if len(w.scene.selected_node_ids()) == 1:
            w.docks["inspector"].show()
            widget = w.inspector.widgets[("node", "label")][1]
            widget.setFocus()
            widget.selectAll()
