"""A run's graph in a tab of its own is read-only: it shows the workflow as the run
recorded it, and changing it would change nothing of the run.

:func:`show_read_only` turns that on or off for one editor window: the Editor refuses
every edit (desktop/ui/editor.py, the one place edits go through), the editing commands
are disabled (their menus, buttons and keys), the palette takes no drops, and the
Inspector's fields show their values without taking any. Save As stays: it makes the
graph a workflow file of the user's, which is edited as any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit, QWidget

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow

READ_ONLY_NOTE = ("This tab shows a run's graph as the run recorded it: it is read-only. "
                  "Save As… makes it a workflow of your own to edit.")
EDIT_ACTIONS = (
    "undo", "redo", "revert", "import_mermaid", "cut", "paste", "duplicate", "delete",
    "add_node", "connect", "connect_report", "rename", "add_note", "add_group",
    "auto_layout", "align_left", "align_right", "align_top", "align_bottom", "align_hcenter",
    "align_vcenter", "distribute_h", "distribute_v", "nudge_left", "nudge_right", "nudge_up",
    "nudge_down")
"""The window's commands that change the document."""


def lock_field(widget: QWidget, locked: bool) -> None:
    """An Inspector field that shows its value and takes no edit (``locked``), or one
    that does: text stays readable and selectable, a check box or list greys out."""
    if isinstance(widget, QLineEdit | QPlainTextEdit):
        widget.setReadOnly(locked)
        widget.setProperty("locked", locked)  # drawn as no input (the theme's rule)
        widget.style().polish(widget)  # the style sheet reads the property on polish
        return
    if isinstance(widget, QComboBox) and widget.isEditable():
        widget.lineEdit().setReadOnly(locked)
    widget.setEnabled(not locked)


def show_read_only(window: EditorWindow, on: bool) -> None:
    """Make ``window``'s document read-only (``on``) or editable again."""
    editor = window.editor
    if editor.read_only == on:
        return
    editor.read_only = on
    stack = editor.undo_stack
    for name in EDIT_ACTIONS:
        action = window.actions_[name]
        # undo and redo follow the history again once the document is editable
        shown = stack.canUndo() if name == "undo" else stack.canRedo() if name == "redo" \
            else True
        action.setEnabled(shown and not on)
    window.palette_panel.setEnabled(not on)
    window.inspector.set_read_only(on)
