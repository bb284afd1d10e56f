"""The editor window's View commands: zoom, fit, opening a subflow, the minimap, snapping
and the theme.

:class:`ViewCommands` is ``window.viewing`` (``window.view`` is the canvas view itself).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.ui.canvas.view import CanvasView
    from desktop.ui.window import EditorWindow


class ViewCommands:
    """The View menu of one editor window."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window

    def shown(self) -> CanvasView:
        """The canvas on screen: the deepest subflow opened, else the workflow's own."""
        level = self.window.subflows.level
        return level.view if level is not None else self.window.view

    def zoom_in(self) -> None:
        """Zoom in one step."""
        self.shown().zoom_in()

    def zoom_out(self) -> None:
        """Zoom out one step."""
        self.shown().zoom_out()

    def zoom_reset(self) -> None:
        """Back to actual size."""
        self.shown().reset_zoom()

    def fit(self) -> None:
        """Show the whole graph on screen."""
        self.shown().fit()

    def fit_selection(self) -> None:
        """Show the selected nodes as large as they fit (all of them when none is)."""
        view = self.shown()
        scene = view.canvas()
        rect = None
        for node_id in scene.selected_node_ids():
            r = scene.nodes[node_id].sceneBoundingRect()
            rect = r if rect is None else rect.united(r)
        view.fit(rect)

    def open_subflow(self) -> None:
        """Show the graph inside the one selected subflow node."""
        window = self.window
        chosen = [n for n in window.scene.selected_node_ids()
                  if (node := window.editor.model.node(n)) is not None and node.kind == "subflow"]
        if len(chosen) != 1:
            window.message("Select one subflow node to open it.")
            return
        window.open_subflow(chosen[0])

    def toggle_minimap(self) -> None:
        """Show or hide the minimap, as its menu item is checked."""
        self.window.minimap.set_wanted(self.window.actions_["minimap"].isChecked())

    def toggle_snap(self) -> None:
        """Snap moved nodes to the grid or not, as its menu item is checked."""
        self.window.editor.snap_to_grid = self.window.actions_["snap"].isChecked()

    def theme_system(self) -> None:
        """Follow the system's light or dark scheme."""
        self.window.set_theme_choice("system")

    def theme_light(self) -> None:
        """The light theme."""
        self.window.set_theme_choice("light")

    def theme_dark(self) -> None:
        """The dark theme."""
        self.window.set_theme_choice("dark")
