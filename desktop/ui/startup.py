"""Opening the editor: the first window, and the offer to restore work left by a crash.

At start-up the window comes first: :func:`show_first_window` shows the tabbed window,
themed and titled with the file's name, before the editor's modules (the workflow
models with pydantic and yaml, the canvas, the panels) are even loaded;
:func:`fill_first_window` makes the document's tab once that window is painted. So the
user sees the window at once, and the document in it a moment later.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QWidget
from shiboken6 import isValid

from desktop.ui import theme as themes
from desktop.ui.settings import ui_settings
from desktop.ui.tabs import TabbedWindow, tabbed

if TYPE_CHECKING:
    from desktop.ui.recovery import Orphan
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
    from desktop.graph.errors import WorkflowLoadError

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


def offer_restore(window: EditorWindow) -> None:
    """Offer to restore what a crashed session left unsaved, if it left anything."""
    from desktop.ui.recovery import find_orphans

    orphans = find_orphans()
    if not orphans:
        return
    answer = ask_restore(window, orphans)
    if answer == "restore":
        restore_orphans(window, orphans)
    elif answer == "discard":
        for orphan in orphans:
            orphan.discard()


def open_editor(path: str | None = None) -> EditorWindow:
    """Show the editor window (on ``path``), then offer to restore crashed sessions."""
    from desktop.ui.window import EditorWindow

    window = EditorWindow(path)
    tabbed(window)  # workflows and runs open as tabs of this window
    offer_restore(window)
    return window


def opening_title(path: str | None) -> str:
    """The first window's title until its document is loaded (the file's name)."""
    return f"{Path(path).name} — Agent Canvas" if path else "Agent Canvas"


def show_first_window(path: str | None = None) -> TabbedWindow:
    """Start-up's window, shown now: in the chosen theme, with the file's name in its
    title and "Opening …" in the middle, before the editor's modules are loaded.
    :func:`fill_first_window` then gives it its document's tab."""
    app = QApplication.instance()
    if app is not None:  # the colours now; the editor adds the style sheet for its parts
        themes.apply_palette(app, first_theme())
    host = TabbedWindow()
    host.setWindowTitle(opening_title(path))
    host.show()
    host.raise_()
    host.activateWindow()
    note = QLabel(f"Opening {Path(path).name}…" if path else "Opening…", host.tabs)
    note.setObjectName("openingNote")
    note.adjustSize()  # centred by hand: an alignment flag would load Qt's enums first
    note.move(host.tabs.rect().center() - note.rect().center())
    note.show()
    return host


def first_theme() -> themes.Theme:
    """The theme of start-up's window: the one chosen, or for "system" the one the editor
    showed last (asking the desktop costs 20 ms of Qt enums; the editor asks it next)."""
    settings = ui_settings()
    choice = str(settings.value("theme", "system"))
    if choice == "system":
        return themes.by_name(settings.value(themes.SHOWN_KEY))
    return themes.pick(choice)


def fill_first_window(host: TabbedWindow, path: str | None = None) -> EditorWindow | None:
    """Give start-up's window its document's tab (``path``: a workflow file, or a run's
    folder shown with its graph; else an untitled workflow), then offer to restore
    crashed sessions; None when the window was closed first."""
    if not isValid(host) or not host.isVisible():
        return None
    from desktop.ui.window import EditorWindow
    from desktop.views.reader import is_run_folder

    for note in host.tabs.findChildren(QLabel, "openingNote"):
        note.hide()  # at once: a modal dialog below may paint before it is deleted
        note.deleteLater()
    run_dir = Path(path).resolve() if path and is_run_folder(Path(path)) else None
    window = EditorWindow(None if run_dir else path)
    host.add(window)
    if run_dir is not None:
        window.show_run(run_dir)
    offer_restore(window)
    return window
