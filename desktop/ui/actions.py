"""Every command of the editor window: menu, text, shortcuts, handler. One table, so the
menus, the command palette and the shortcuts dialog always agree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from desktop.ui.window_actions import WindowCommands

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


@dataclass(frozen=True)
class Spec:
    """One command: its name, menu text and menu, the window method it calls, its keys."""

    name: str
    text: str
    menu: str
    handler: Callable[[WindowCommands], object]
    keys: tuple[str, ...] = ()
    checkable: bool = False
    tip: str = ""


SEP = None
W = WindowCommands  # each command's handler: a method of the window's mixin
ACTIONS: list[Spec | None] = [
    Spec("new", "&New", "File", W.file_new, ("Ctrl+N",)),
    Spec("new_from_template", "New from &Template…", "File", W.file_new_from_template,
         ("Ctrl+Alt+N",), tip="Start from a role-based starter or an example"),
    Spec("new_window", "New &Window", "File", W.file_new_window, ("Ctrl+Shift+N",)),
    Spec("open", "&Open…", "File", W.file_open, ("Ctrl+O",),
         tip="Open a workflow in a new tab"),
    Spec("open_new_window", "Open in New W&indow…", "File", W.file_open_new_window,
         ("Ctrl+Shift+O",), tip="Open a workflow in a window of its own"),
    Spec("save", "&Save", "File", W.file_save, ("Ctrl+S",)),
    Spec("save_as", "Save &As…", "File", W.file_save_as, ("Ctrl+Shift+S",)),
    Spec("revert", "&Revert to Saved", "File", W.file_revert),
    Spec("compare", "Compare &With…", "File", W.file_compare,
         tip="Show on the canvas what this workflow adds, removes and changes relative "
             "to another workflow file"),
    Spec("compare_commit", "Compare With Co&mmit…", "File", W.file_compare_commit,
         tip="Show on the canvas how this workflow changed between commits in git"),
    Spec("compare_stop", "Stop Comparin&g", "File", W.file_compare_stop),
    SEP,
    Spec("open_evaluation", "Open E&valuation…", "File", W.file_open_evaluation,
         tip="Compare a baseline and a new workflow: the --out folder of `eval run`"),
    SEP,
    Spec("import_mermaid", "&Import Mermaid…", "File", W.file_import_mermaid),
    Spec("export_mermaid", "Export &Mermaid…", "File", W.file_export_mermaid),
    Spec("export_png", "Export &PNG…", "File", W.file_export_png, ("Ctrl+Shift+E",)),
    Spec("export_svg", "Export S&VG…", "File", W.file_export_svg),
    SEP,
    Spec("close", "&Close", "File", W.file_close, ("Ctrl+W",), tip="Close this workflow"),
    Spec("quit", "&Quit", "File", W.app_quit, ("Ctrl+Q",)),
    Spec("undo", "&Undo", "Edit", W.edit_undo, ("Ctrl+Z",)),
    Spec("redo", "&Redo", "Edit", W.edit_redo, ("Ctrl+Shift+Z", "Ctrl+Y")),
    SEP,
    Spec("cut", "Cu&t", "Edit", W.edit_cut, ("Ctrl+X",)),
    Spec("copy", "&Copy", "Edit", W.edit_copy, ("Ctrl+C",)),
    Spec("paste", "&Paste", "Edit", W.edit_paste, ("Ctrl+V",)),
    Spec("duplicate", "D&uplicate", "Edit", W.edit_duplicate, ("Ctrl+D",)),
    Spec("delete", "&Delete", "Edit", W.edit_delete, ("Delete", "Backspace")),
    Spec("select_all", "Select &All", "Edit", W.edit_select_all, ("Ctrl+A",)),
    SEP,
    Spec("add_node", "Add &Node…", "Edit", W.show_quick_add, ("Insert",),
         tip="Also Tab, or double-click the canvas"),
    Spec("connect", "Connect Selected (&Handoff)", "Edit", W.edit_connect_handoff, ("Ctrl+J",),
         tip="Chain the selected nodes left to right"),
    Spec("connect_report", "Connect Selected (R&eport)", "Edit", W.edit_connect_report,
         ("Ctrl+Shift+J",)),
    Spec("rename", "&Rename Node", "Edit", W.edit_rename, ("F2",)),
    Spec("add_note", "Add Sticky N&ote", "Edit", W.edit_add_note,
         tip="A note on the canvas, saved with the workflow"),
    Spec("add_group", "&Group Selection", "Edit", W.edit_add_group, ("Ctrl+Shift+G",),
         tip="A titled frame around the selected nodes; they move with it"),
    SEP,
    Spec("find", "&Find Node…", "Edit", W.show_find, ("Ctrl+F",)),
    Spec("command_palette", "Command &Palette…", "Edit", W.show_command_palette,
         ("Ctrl+K", "Ctrl+Shift+P")),
    SEP,
    Spec("settings", "Se&ttings…", "Edit", W.show_settings, ("Ctrl+,",),
         tip="Theme and API keys (kept in the system keyring)"),
    Spec("zoom_in", "Zoom &In", "View", W.view_zoom_in, ("Ctrl+=", "Ctrl++")),
    Spec("zoom_out", "Zoom &Out", "View", W.view_zoom_out, ("Ctrl+-",)),
    Spec("zoom_reset", "&Actual Size", "View", W.view_zoom_reset, ("Ctrl+0",)),
    Spec("fit", "&Fit to Window", "View", W.view_fit, ("Ctrl+1",)),
    Spec("fit_selection", "Fit &Selection", "View", W.view_fit_selection, ("Ctrl+2",)),
    SEP,
    Spec("minimap", "&Minimap", "View", W.view_toggle_minimap, ("Ctrl+M",), checkable=True),
    Spec("snap", "Snap to &Grid", "View", W.view_toggle_snap, ("Ctrl+G",), checkable=True),
    SEP,
    Spec("theme_system", "Theme: &System", "View", W.view_theme_system),
    Spec("theme_light", "Theme: &Light", "View", W.view_theme_light),
    Spec("theme_dark", "Theme: &Dark", "View", W.view_theme_dark),
    Spec("auto_layout", "&Auto-Layout", "Arrange", W.arrange_auto_layout, ("Ctrl+L",)),
    SEP,
    Spec("align_left", "Align &Left", "Arrange", W.arrange_align_left, ("Ctrl+Alt+Left",)),
    Spec("align_right", "Align &Right", "Arrange", W.arrange_align_right, ("Ctrl+Alt+Right",)),
    Spec("align_top", "Align &Top", "Arrange", W.arrange_align_top, ("Ctrl+Alt+Up",)),
    Spec("align_bottom", "Align &Bottom", "Arrange", W.arrange_align_bottom, ("Ctrl+Alt+Down",)),
    Spec("align_hcenter", "Align &Centers Horizontally", "Arrange", W.arrange_align_hcenter),
    Spec("align_vcenter", "Align Centers &Vertically", "Arrange", W.arrange_align_vcenter),
    SEP,
    Spec("distribute_h", "Distribute &Horizontally", "Arrange", W.arrange_distribute_h,
         ("Ctrl+Alt+H",)),
    Spec("distribute_v", "Distribute V&ertically", "Arrange", W.arrange_distribute_v,
         ("Ctrl+Alt+V",)),
    SEP,
    Spec("nudge_left", "Nudge Left", "Arrange", W.arrange_nudge_left, ("Left",)),
    Spec("nudge_right", "Nudge Right", "Arrange", W.arrange_nudge_right, ("Right",)),
    Spec("nudge_up", "Nudge Up", "Arrange", W.arrange_nudge_up, ("Up",)),
    Spec("nudge_down", "Nudge Down", "Arrange", W.arrange_nudge_down, ("Down",)),
    Spec("shortcuts", "&Keyboard Shortcuts", "Help", W.show_shortcuts, ("F1", "Ctrl+/")),
    Spec("about", "&About Agent Canvas", "Help", W.show_about),
]

MENUS = ["File", "Edit", "View", "Arrange", "Help"]
# shortcuts that would steal keys from text fields work only while the canvas has focus
CANVAS_ONLY = {"delete", "nudge_left", "nudge_right", "nudge_up", "nudge_down", "select_all",
               "cut", "copy", "paste", "duplicate"}


def build(window: EditorWindow, canvas: QWidget) -> dict[str, QAction]:
    """Create the actions, wired to ``window``'s handler methods."""
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
        action.triggered.connect(lambda _=False, h=spec.handler: h(window))
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
