"""Every command of the editor window: menu, text, shortcuts, handler. One table, so the
menus, the command palette and the shortcuts dialog always agree.

A handler names the window part that does the command (``w.files.save``: see
desktop/ui/window.py for the parts), so a renamed method fails where the table names it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


@dataclass(frozen=True)
class Spec:
    """One command: its name, menu text and menu, the method it calls, its keys."""

    name: str
    text: str
    menu: str
    handler: Callable[[EditorWindow], Callable[[], object]]
    """The method that does the command, reached from the window it is built for."""
    keys: tuple[str, ...] = ()
    checkable: bool = False
    tip: str = ""


SEP = None
ACTIONS: list[Spec | None] = [
    Spec("new", "&New", "File", lambda w: w.files.new, ("Ctrl+N",)),
    Spec("new_from_template", "New from &Template…", "File", lambda w: w.files.new_from_template,
         ("Ctrl+Alt+N",), tip="Start from a role-based starter or an example"),
    Spec("new_window", "New &Window", "File", lambda w: w.files.new_window, ("Ctrl+Shift+N",)),
    Spec("open", "&Open…", "File", lambda w: w.files.open, ("Ctrl+O",),
         tip="Open a workflow in a new tab"),
    Spec("open_new_window", "Open in New W&indow…", "File", lambda w: w.files.open_new_window,
         ("Ctrl+Shift+O",), tip="Open a workflow in a window of its own"),
    Spec("save", "&Save", "File", lambda w: w.files.save, ("Ctrl+S",)),
    Spec("save_as", "Save &As…", "File", lambda w: w.files.save_as, ("Ctrl+Shift+S",)),
    Spec("revert", "&Revert to Saved", "File", lambda w: w.files.revert),
    Spec("compare", "Compare &With…", "File", lambda w: w.compare.with_file,
         tip="Show on the canvas what this workflow adds, removes and changes relative "
             "to another workflow file"),
    Spec("compare_commit", "Compare With Co&mmit…", "File", lambda w: w.compare.with_commit,
         tip="Show on the canvas how this workflow changed between commits in git"),
    Spec("compare_stop", "Stop Comparin&g", "File", lambda w: w.compare.stop),
    SEP,
    Spec("open_evaluation", "Open E&valuation…", "File", lambda w: w.files.open_evaluation,
         tip="Compare a baseline and a new workflow: the --out folder of `eval run`"),
    SEP,
    Spec("import_mermaid", "&Import Mermaid…", "File", lambda w: w.exports.import_mermaid),
    Spec("export_mermaid", "Export &Mermaid…", "File", lambda w: w.exports.export_mermaid),
    Spec("export_png", "Export &PNG…", "File", lambda w: w.exports.export_png, ("Ctrl+Shift+E",)),
    Spec("export_svg", "Export S&VG…", "File", lambda w: w.exports.export_svg),
    SEP,
    Spec("close", "&Close", "File", lambda w: w.files.close,
         ("Ctrl+W",), tip="Close this workflow"),
    Spec("quit", "&Quit", "File", lambda w: w.files.quit, ("Ctrl+Q",)),
    Spec("undo", "&Undo", "Edit", lambda w: w.edit.undo, ("Ctrl+Z",)),
    Spec("redo", "&Redo", "Edit", lambda w: w.edit.redo, ("Ctrl+Shift+Z", "Ctrl+Y")),
    SEP,
    Spec("cut", "Cu&t", "Edit", lambda w: w.edit.cut, ("Ctrl+X",)),
    Spec("copy", "&Copy", "Edit", lambda w: w.edit.copy, ("Ctrl+C",)),
    Spec("paste", "&Paste", "Edit", lambda w: w.edit.paste, ("Ctrl+V",)),
    Spec("duplicate", "D&uplicate", "Edit", lambda w: w.edit.duplicate, ("Ctrl+D",)),
    Spec("delete", "&Delete", "Edit", lambda w: w.edit.delete, ("Delete", "Backspace")),
    Spec("select_all", "Select &All", "Edit", lambda w: w.edit.select_all, ("Ctrl+A",)),
    SEP,
    Spec("add_node", "Add &Node…", "Edit", lambda w: w.pickers.quick_add, ("Insert",),
         tip="Also Tab, or double-click the canvas"),
    Spec("connect", "Connect Selected (&Handoff)", "Edit", lambda w: w.edit.connect_handoff,
         ("Ctrl+J",),
         tip="Chain the selected nodes left to right"),
    Spec("connect_report", "Connect Selected (R&eport)", "Edit", lambda w: w.edit.connect_report,
         ("Ctrl+Shift+J",)),
    Spec("rename", "&Rename Node", "Edit", lambda w: w.edit.rename, ("F2",)),
    Spec("add_note", "Add Sticky N&ote", "Edit", lambda w: w.edit.add_note,
         tip="A note on the canvas, saved with the workflow"),
    Spec("add_group", "&Group Selection", "Edit", lambda w: w.edit.add_group, ("Ctrl+Shift+G",),
         tip="A titled frame around the selected nodes; they move with it"),
    SEP,
    Spec("find", "&Find Node…", "Edit", lambda w: w.pickers.find, ("Ctrl+F",)),
    Spec("command_palette", "Command &Palette…", "Edit", lambda w: w.pickers.command_palette,
         ("Ctrl+K", "Ctrl+Shift+P")),
    SEP,
    Spec("settings", "Se&ttings…", "Edit", lambda w: w.help.settings, ("Ctrl+,",),
         tip="Theme and API keys (kept in the system keyring)"),
    Spec("zoom_in", "Zoom &In", "View", lambda w: w.viewing.zoom_in, ("Ctrl+=", "Ctrl++")),
    Spec("zoom_out", "Zoom &Out", "View", lambda w: w.viewing.zoom_out, ("Ctrl+-",)),
    Spec("zoom_reset", "&Actual Size", "View", lambda w: w.viewing.zoom_reset, ("Ctrl+0",)),
    Spec("fit", "&Fit to Window", "View", lambda w: w.viewing.fit, ("Ctrl+1",)),
    Spec("fit_selection", "Fit &Selection", "View", lambda w: w.viewing.fit_selection, ("Ctrl+2",)),
    Spec("open_subflow", "Open Su&bflow", "View", lambda w: w.viewing.open_subflow,
         tip="Show the graph inside the selected subflow node (or double-click it)"),
    SEP,
    Spec("minimap", "&Minimap", "View", lambda w: w.viewing.toggle_minimap,
         ("Ctrl+M",), checkable=True),
    Spec("snap", "Snap to &Grid", "View", lambda w: w.viewing.toggle_snap,
         ("Ctrl+G",), checkable=True),
    SEP,
    Spec("theme_system", "Theme: &System", "View", lambda w: w.viewing.theme_system,
         checkable=True),
    Spec("theme_light", "Theme: &Light", "View", lambda w: w.viewing.theme_light,
         checkable=True),
    Spec("theme_dark", "Theme: &Dark", "View", lambda w: w.viewing.theme_dark,
         checkable=True),
    Spec("auto_layout", "&Auto-Layout", "Arrange", lambda w: w.arrange.auto_layout, ("Ctrl+L",)),
    SEP,
    Spec("align_left", "Align &Left", "Arrange", lambda w: w.arrange.align_left,
         ("Ctrl+Alt+Left",)),
    Spec("align_right", "Align &Right", "Arrange", lambda w: w.arrange.align_right,
         ("Ctrl+Alt+Right",)),
    Spec("align_top", "Align &Top", "Arrange", lambda w: w.arrange.align_top, ("Ctrl+Alt+Up",)),
    Spec("align_bottom", "Align &Bottom", "Arrange", lambda w: w.arrange.align_bottom,
         ("Ctrl+Alt+Down",)),
    Spec("align_hcenter", "Align &Centers Horizontally", "Arrange",
         lambda w: w.arrange.align_hcenter),
    Spec("align_vcenter", "Align Centers &Vertically", "Arrange",
         lambda w: w.arrange.align_vcenter),
    SEP,
    Spec("distribute_h", "Distribute &Horizontally", "Arrange", lambda w: w.arrange.distribute_h,
         ("Ctrl+Alt+H",)),
    Spec("distribute_v", "Distribute V&ertically", "Arrange", lambda w: w.arrange.distribute_v,
         ("Ctrl+Alt+V",)),
    SEP,
    Spec("nudge_left", "Nudge Left", "Arrange", lambda w: w.arrange.nudge_left, ("Left",)),
    Spec("nudge_right", "Nudge Right", "Arrange", lambda w: w.arrange.nudge_right, ("Right",)),
    Spec("nudge_up", "Nudge Up", "Arrange", lambda w: w.arrange.nudge_up, ("Up",)),
    Spec("nudge_down", "Nudge Down", "Arrange", lambda w: w.arrange.nudge_down, ("Down",)),
    Spec("shortcuts", "&Keyboard Shortcuts", "Help", lambda w: w.help.shortcuts, ("F1", "Ctrl+/")),
    Spec("about", "&About Agent Canvas", "Help", lambda w: w.help.about),
]

MENUS = ["File", "Edit", "View", "Arrange", "Help"]
# shortcuts that would steal keys from text fields work only while the canvas has focus
CANVAS_ONLY = {"delete", "nudge_left", "nudge_right", "nudge_up", "nudge_down", "select_all",
               "cut", "copy", "paste", "duplicate"}


def build(window: EditorWindow, canvas: QWidget) -> dict[str, QAction]:
    """Create the actions, each wired to its handler on ``window``."""
    from PySide6.QtCore import Qt

    out: dict[str, QAction] = {}
    for spec in ACTIONS:
        if spec is None:
            continue
        action = QAction(spec.text, window)
        action.setObjectName(spec.name)
        if spec.keys:
            action.setShortcuts([QKeySequence(k) for k in spec.keys])
        action.setCheckable(spec.checkable)
        tip = spec.tip or spec.text.replace("&", "").rstrip("…")
        if spec.keys:
            tip += f"  ({spec.keys[0]})"
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.triggered.connect(lambda _=False, h=spec.handler: h(window)())
        if spec.name in CANVAS_ONLY:
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            canvas.addAction(action)
        out[spec.name] = action
    return out


def shortcut_rows() -> list[tuple[str, str, str]]:
    """(menu, command, keys) for the shortcuts dialog, plus the canvas gestures."""
    rows = [(s.menu, s.text.replace("&", ""), ", ".join(s.keys)) for s in ACTIONS
            if s is not None and s.keys]
    rows += [
        ("Tabs", "Next tab", "Ctrl+Tab"),
        ("Tabs", "Previous tab", "Ctrl+Shift+Tab"),
        ("Canvas", "Quick-add a node at the cursor", "Tab, or double-click empty canvas"),
        ("Canvas", "Connect (handoff)", "Drag from a node's right port onto another node"),
        ("Canvas", "Connect (report)", "Shift + drag from a node's right port"),
        ("Canvas", "Select several", "Drag a rubber band, or Ctrl+click"),
        ("Canvas", "Move without snapping", "Alt + drag"),
        ("Canvas", "Pan", "Middle-drag, or hold Space and drag"),
        ("Canvas", "Zoom at the cursor", "Mouse wheel"),
        ("Canvas", "Scroll sideways", "Shift + wheel"),
        ("Canvas", "Cancel a gesture / clear selection", "Esc"),
        ("Palette", "Add a role or provider", "Drag onto the canvas, or double-click"),
        ("Palette", "Change a node's provider", "Drag a provider onto the node"),
    ]
    return rows
