"""The canvas's right-click menus: what can be done to a node, an edge or the canvas,
from the window's own actions (so each shows its shortcut and is enabled as in the
menu bar), and, while a run is shown, where the node works in it
(desktop/ui/run/node_menu.py).

A node or an edge right-clicked outside the selection becomes the selection first, as
in any editor, so the menu's actions apply to what was clicked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, QPointF
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from desktop.contract.enums import EdgeType

if TYPE_CHECKING:
    from desktop.ui.canvas.scene import CanvasScene
    from desktop.views.node_place import NodePlace

NODE_ACTIONS = ("rename", "duplicate", "cut", "copy", "delete", None, "add_group",
                "fit_selection")
SELECTION_ACTIONS = ("connect", "connect_report")
"""Offered when two or more nodes are selected: they chain them left to right."""
EDGE_ACTIONS = ("delete",)
CANVAS_ACTIONS = ("add_node", "paste", "add_note", None, "select_all", "auto_layout", "fit")


class CanvasMenus(QObject):
    """Answers the scene's menu requests with a menu made of ``actions`` (the window's,
    by name); ``place`` says where a node works in the run shown (None: no run, or
    not in it)."""

    def __init__(self, scene: CanvasScene, actions: dict[str, QAction],
                 place: Callable[[str], NodePlace | None],
                 said: Callable[[str], None] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scene = scene
        self.actions = actions
        self.place = place
        self.said = said
        self.shown: QMenu | None = None
        """The menu last shown (kept: Qt shows it after the request returns)."""
        scene.nodeMenuAsked.connect(self.node_menu)
        scene.canvasMenuAsked.connect(self.canvas_menu)

    def node_menu(self, key: str, at: QPoint) -> None:
        """The menu of node ``key`` (a document node's id, or a node the run added)."""
        place = self.place(key)
        in_document = key in self.scene.nodes
        if not in_document and place is None:
            return
        if in_document and key not in self.scene.selected_node_ids():
            self.scene.select([key])
        if place is not None:
            from desktop.ui.run.node_menu import NodeMenu  # not before the first paint

            menu: QMenu = NodeMenu(place, said=self.said)
        else:
            menu = QMenu()
            menu.addSection(self._label(key))
        if in_document:
            if place is not None:
                menu.addSection("Workflow")
            node = self.scene.model.node(key)
            if node is not None and node.kind == "subflow":
                self._add(menu, ("open_subflow",))
            if len(self.scene.selected_node_ids()) > 1:
                self._add(menu, SELECTION_ACTIONS)
            self._add(menu, NODE_ACTIONS)
        self._show(menu, at)

    def canvas_menu(self, scene_pos: QPointF, at: QPoint) -> None:
        """The menu of the edge at ``scene_pos`` (made the selection), else the canvas's."""
        edge = self.scene.edge_at(scene_pos)
        menu = QMenu()
        if edge is not None:
            if edge not in self.scene.selected_edge_keys():
                self.scene.select([], [edge])
            self._edge_items(menu, edge)
            self._add(menu, EDGE_ACTIONS)
        else:
            self._add(menu, CANVAS_ACTIONS)
        self._show(menu, at)

    def _edge_items(self, menu: QMenu, key: str) -> None:
        """The edge's ends as the title, and turning it into the other kind of edge."""
        edge = self.scene.model.edge(key)
        if edge is None:
            return
        menu.addSection(f"{self._label(edge.from_)} → {self._label(edge.to)}")
        other = EdgeType.HANDOFF if edge.type == EdgeType.REPORT else EdgeType.REPORT
        editor = self.scene.editor
        menu.addAction(f"Make it a {other.value} edge", lambda: editor.edit_edge(
            key, edge.model_copy(update={"type": other.value}))).setEnabled(not editor.read_only)

    def _label(self, key: str) -> str:
        node = self.scene.model.node(key)
        return (node.label or node.id) if node is not None else key

    def _add(self, menu: QMenu, names: tuple[str | None, ...]) -> None:
        for name in names:
            if name is None:
                menu.addSeparator()
                continue
            action = self.actions.get(name)
            if action is not None and action.isVisible():
                menu.addAction(action)

    def _show(self, menu: QMenu, at: QPoint) -> None:
        if self.shown is not None:
            self.shown.deleteLater()
        self.shown = menu
        menu.popup(at)


__all__ = ["CanvasMenus"]
