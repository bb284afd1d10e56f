"""The editor window's pick-from-a-list pop-ups: quick add, find node, command palette.

:class:`Pickers` is ``window.pickers``; each opens the window's one FilterPopup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, QPointF

from desktop.ui.palette import entries
from desktop.ui.popups import Choice

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


class Pickers:
    """Adding, finding and commanding by typing a few letters."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window

    def quick_add(self) -> None:
        """Pick a role or provider to add as a node at the cursor."""
        self.quick_add_at(self.window.view.cursor_scene_pos())

    def _popup_at(self, scene_point: QPointF) -> QPoint:
        view = self.window.view
        return view.viewport().mapToGlobal(view.mapFromScene(scene_point))

    def quick_add_at(self, scene_point: QPointF,
                     then: Callable[[str], object] | None = None) -> None:
        """Pick a role or provider to add as a node at ``scene_point``; ``then`` gets the
        new node's id."""
        if not self.window.editor.editable():  # a run's graph: no list to pick from
            return
        choices = [Choice(e["title"], e["kind"], e) for e in entries()]

        def add(spec: dict[str, Any]) -> None:
            if spec["kind"] == "subflow":  # asks for its file first
                node_id = self.window.subflow_pick.add_at(scene_point)
            else:
                node_id = self.window.scene.drop_template(
                    {"kind": "role", "name": "implementer", "provider": spec["name"]}
                    if spec["kind"] == "provider" else spec, scene_point)
            if then and node_id:
                then(node_id)

        self.window.popup.open("Add node", choices, self._popup_at(scene_point), add,
                               "Role or provider, e.g. planner")

    def quick_add_connected(self, source: str, scene_point: QPointF) -> None:
        """A connection dropped on empty canvas: add a node there, connected."""
        self.quick_add_at(scene_point, lambda new: self.window.editor.connect(source, new))

    def add_from_palette(self, spec: dict[str, Any]) -> None:
        """A palette entry activated: add it mid-canvas."""
        if not self.window.editor.editable():
            return
        view = self.window.view
        center = view.mapToScene(view.viewport().rect().center())
        self.window.scene.drop_template(spec, center)

    def _top_center(self) -> QPoint:
        view = self.window.view
        top = view.mapToGlobal(view.rect().topLeft())
        return top + QPointF(view.width() / 2 - 210, 40).toPoint()

    def find(self) -> None:
        """Pick a node by name or id, select it and bring it into view."""
        w = self.window
        choices = [Choice(n.label or n.id, f"{n.id} · {n.role_template}", n.id)
                   for n in w.editor.model.doc.nodes]

        def go(node_id: str) -> None:
            w.scene.select([node_id])
            w.view.center_on_node(node_id)

        w.popup.open("Find node", choices, self._top_center(), go, "Node name or id")

    def command_choices(self) -> list[Choice]:
        """Every enabled command of the window, the run toolbar's included, with its keys."""
        from desktop.ui.help_dialog import command_name, run_actions

        w = self.window
        choices = []
        actions = [a for n, a in w.actions_.items() if n != "command_palette"]
        for action in [*actions, *run_actions(w.run_panels)]:
            if not action.isEnabled() or not command_name(action):
                continue
            keys = ", ".join(s.toString() for s in action.shortcuts())
            choices.append(Choice(command_name(action).rstrip("…"), keys, action))
        return choices

    def command_palette(self) -> None:
        """Pick any command by its name and run it."""
        self.window.popup.open("Commands", self.command_choices(), self._top_center(),
                               lambda a: a.trigger(), "Type a command")
