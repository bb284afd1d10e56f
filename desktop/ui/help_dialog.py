"""The keyboard shortcuts dialog (F1), built from the same table as the menus."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from desktop.ui.actions import shortcut_rows
from desktop.ui.dialog_size import keep_readable
from desktop.ui.theme import ROOMY_ROWS

if TYPE_CHECKING:
    from desktop.ui.run.attach import RunPanels
    from desktop.ui.window import EditorWindow


def command_name(action: QAction) -> str:
    """What an action does, without the marks and counts its button text carries."""
    return str(action.property("command") or action.text().replace("&", "").strip("▶■ "))


def run_actions(panels: RunPanels) -> list[QAction]:
    """The run toolbar's commands, the Approvals badge and the scrubber's Fork from here
    (outside the menu table)."""
    # the badge sits on the run toolbar too: each action once
    return list(dict.fromkeys([*panels.controls.actions(), panels.approvals.badge,
                               panels.timeline.fork_action]))


def _toolbar_rows(window: EditorWindow | None) -> list[tuple[str, str, str]]:
    """Shortcuts of the run toolbar, which lives outside the menu table."""
    if window is None:
        return []
    return [("Run", command_name(a), a.shortcut().toString())
            for a in run_actions(window.run_panels) if not a.shortcut().isEmpty()]


class ShortcutsDialog(QDialog):
    """Every shortcut and canvas gesture, filterable."""

    def __init__(self, parent: EditorWindow | None = None):
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.setWindowTitle("Keyboard Shortcuts")
        self.resize(620, 560)
        self.search = QLineEdit(placeholderText="Filter shortcuts")
        self.tree = QTreeWidget()
        self.tree.setStyleSheet(ROOMY_ROWS)
        self.tree.setHeaderLabels(["Command", "Keys"])
        self.tree.setRootIsDecorated(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        groups: dict[str, QTreeWidgetItem] = {}
        for menu, command, keys in [*shortcut_rows(), *_toolbar_rows(parent)]:
            if menu not in groups:
                groups[menu] = QTreeWidgetItem([menu])
                self.tree.addTopLevelItem(groups[menu])
            groups[menu].addChild(QTreeWidgetItem([command, keys]))
        self.tree.expandAll()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self.search.textChanged.connect(self._filter)

    def _filter(self, text: str) -> None:
        needle = text.lower().strip()
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            shown = 0
            for i in range(group.childCount()):
                item = group.child(i)
                hay = f"{group.text(0)} {item.text(0)} {item.text(1)}".lower()
                item.setHidden(bool(needle) and needle not in hay)
                shown += not item.isHidden()
            group.setHidden(shown == 0)  # a heading with nothing under it is noise
