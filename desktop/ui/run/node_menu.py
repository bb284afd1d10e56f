"""A node's menu on the canvas while a run is shown (right-click on its card): open the
folder it works in (its own worktree) in the editor or the file manager, copy its path,
copy its branch. The run's state says which folder (desktop/views/node_place.py); a
folder that is gone, or on another machine, is named and not offered to open.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from desktop.ui.open_path import open_in_editor, open_with_desktop
from desktop.views.node_place import NodePlace


class NodeMenu(QMenu):
    """The menu of one node's place in a run."""

    def __init__(self, place: NodePlace, parent: QWidget | None = None, *,
                 editor: Callable[[Path], bool] = open_in_editor,
                 files: Callable[[Path], bool] = open_with_desktop,
                 said: Callable[[str], None] | None = None) -> None:
        super().__init__(parent)
        self.place = place
        self._said = said
        title = f"{place.label}: {place.branch}" if place.branch else place.label
        self.addSection(title)
        what = place.what
        self.open_editor = self.addAction(f"Open {what} in editor",
                                          lambda: self._open(editor, "an editor"))
        self.open_files = self.addAction(f"Open {what} in file manager",
                                         lambda: self._open(files, "a file manager"))
        self.copy_path = self.addAction(f"Copy {what} path",
                                        lambda: self._copy(str(place.folder)))
        self.copy_branch = self.addAction("Copy branch name",
                                          lambda: self._copy(place.branch or ""))
        self.copy_branch.setVisible(place.branch is not None)
        for action in (self.open_editor, self.open_files):
            action.setEnabled(place.unreachable is None)
            action.setToolTip(place.unreachable or str(place.folder))
        if place.unreachable is not None:
            note = self.addAction(f"Cannot open: {place.unreachable}")
            note.setEnabled(False)
        self.setToolTipsVisible(True)

    def _open(self, opener: Callable[[Path], bool], where: str) -> None:
        if not opener(self.place.folder) and self._said is not None:
            self._said(f"Could not open {self.place.folder} in {where}; set $VISUAL or "
                       "$EDITOR, or copy its path")

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)
        if self._said is not None:
            self._said(f"Copied {text}")


__all__ = ["NodeMenu"]
