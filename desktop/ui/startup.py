"""Opening the editor: the first window, and the offer to restore work left by a crash."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.graph.errors import WorkflowLoadError
from desktop.ui.recovery import Orphan, find_orphans
from desktop.ui.tabs import tabbed
from desktop.ui.window import EditorWindow


def ask_restore(parent: QWidget | None, orphans: list[Orphan]) -> str:
    """Ask whether to restore unsaved work: "restore", "discard" or "later"."""
    lines = "".join(
        f"<li><b>{o.name}</b> — {Path(o.path).name if o.path else 'never saved'}"
        f" <span style='color:gray'>({o.saved_at.replace('T', ' ')[:19]} UTC)</span></li>"
        for o in orphans)
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Restore unsaved work")
    box.setText("Agent Canvas did not close normally last time. Restore the unsaved "
                f"changes?<ul>{lines}</ul>")
    restore = box.addButton("Restore", QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton("Not Now", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(restore)
    box.exec()
    clicked = box.clickedButton()
    return "restore" if clicked is restore else "discard" if clicked is discard else "later"


def restore_orphans(window: EditorWindow, orphans: list[Orphan]) -> list[EditorWindow]:
    """Open each recovered document (in ``window`` first if it is blank)."""
    opened = []
    for orphan in orphans:
        try:
            doc = orphan.load()
        except (OSError, WorkflowLoadError):
            continue  # unreadable copy: leave it in place for a person to look at
        target = window if window.files.is_blank() else window.files.document_window()
        target.file.restore(doc, orphan.path)
        target.view.fit()
        target.message(f"Restored unsaved changes to {orphan.name}")
        target.show()
        orphan.discard()
        opened.append(target)
    return opened


def open_editor(path: str | None = None) -> EditorWindow:
    """Show the editor window (on ``path``), then offer to restore crashed sessions."""
    window = EditorWindow(path)
    tabbed(window)  # workflows and runs open as tabs of this window
    orphans = find_orphans()
    if orphans:
        answer = ask_restore(window, orphans)
        if answer == "restore":
            restore_orphans(window, orphans)
        elif answer == "discard":
            for orphan in orphans:
                orphan.discard()
    return window
