"""The editor window's Arrange commands: auto-layout, align, distribute and nudge nodes.

:class:`ArrangeCommands` is ``window.arrange``; each command is one undoable step on the
selected nodes (auto-layout: on every node).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.ui.editor import GRID

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


class ArrangeCommands:
    """The Arrange menu of one editor window."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window

    def auto_layout(self) -> None:
        """Lay every node out left to right along the edges, then fit the view."""
        self.window.editor.auto_layout()
        self.window.view.fit()

    def _align(self, how: str) -> None:
        self.window.editor.align(self.window.scene.selected_node_ids(), how)

    def align_left(self) -> None:
        """Line the selected nodes' left sides up."""
        self._align("left")

    def align_right(self) -> None:
        """Line the selected nodes' right sides up."""
        self._align("right")

    def align_top(self) -> None:
        """Line the selected nodes' tops up."""
        self._align("top")

    def align_bottom(self) -> None:
        """Line the selected nodes' bottoms up."""
        self._align("bottom")

    def align_hcenter(self) -> None:
        """Line the selected nodes' centres up on one vertical line."""
        self._align("hcenter")

    def align_vcenter(self) -> None:
        """Line the selected nodes' centres up on one horizontal line."""
        self._align("vcenter")

    def distribute_h(self) -> None:
        """Space the selected nodes evenly from left to right."""
        self.window.editor.distribute(self.window.scene.selected_node_ids(), "x")

    def distribute_v(self) -> None:
        """Space the selected nodes evenly from top to bottom."""
        self.window.editor.distribute(self.window.scene.selected_node_ids(), "y")

    def nudge(self, dx: float, dy: float) -> None:
        """Move the selected nodes by (``dx``, ``dy``)."""
        editor = self.window.editor
        ids = self.window.scene.selected_node_ids()
        if ids:
            pos = editor.positions(ids)
            editor.move({i: (x + dx, y + dy) for i, (x, y) in pos.items()}, "Nudge")

    def nudge_left(self) -> None:
        """Move the selected nodes one grid step left."""
        self.nudge(-GRID, 0)

    def nudge_right(self) -> None:
        """Move the selected nodes one grid step right."""
        self.nudge(GRID, 0)

    def nudge_up(self) -> None:
        """Move the selected nodes one grid step up."""
        self.nudge(0, -GRID)

    def nudge_down(self) -> None:
        """Move the selected nodes one grid step down."""
        self.nudge(0, GRID)
