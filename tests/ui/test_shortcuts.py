"""Every shortcut of the main window does one thing: no two actions share a key sequence,
and the F1 dialog and the command palette list the run commands, Approvals included."""

from __future__ import annotations

from collections import defaultdict

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from desktop.ui.help_dialog import ShortcutsDialog
from desktop.ui.window import EditorWindow


def _actions_with_keys(window: EditorWindow) -> list[tuple[QAction, str]]:
    out = []
    for action in window.findChildren(QAction):
        for seq in action.shortcuts():
            if not seq.isEmpty():
                out.append((action, seq.toString(QKeySequence.SequenceFormat.PortableText)))
    return out


def test_no_two_actions_of_the_window_share_a_shortcut(editor_window: EditorWindow) -> None:
    owners: dict[str, set[str]] = defaultdict(set)
    for action, keys in _actions_with_keys(editor_window):
        owners[keys].add(action.objectName() or action.text())
    shared = {keys: names for keys, names in owners.items() if len(names) > 1}
    assert not shared, f"shortcuts bound twice: {shared}"
    assert owners["Ctrl+Shift+A"] == {"approvals"}


def test_the_command_palette_lists_each_shortcut_once(editor_window: EditorWindow) -> None:
    choices = editor_window.pickers.command_choices()
    names = [c.text for c in choices]
    assert "Approvals" in names and "Run" in names and "Run interactively" in names
    keys = [k for c in choices for k in c.detail.split(", ") if k]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)


def test_f1_lists_approvals_by_name(editor_window: EditorWindow) -> None:
    dialog = ShortcutsDialog(editor_window)
    tree = dialog.tree
    rows = {tree.topLevelItem(g).child(i).text(0): tree.topLevelItem(g).child(i).text(1)
            for g in range(tree.topLevelItemCount())
            for i in range(tree.topLevelItem(g).childCount())}
    assert rows["Approvals"] == "Ctrl+Shift+A"
    assert rows["Add Node…"] not in ("", "Ctrl+Shift+A")


def test_f1_filter_hides_groups_with_nothing_left(editor_window) -> None:
    dialog = ShortcutsDialog(editor_window)
    dialog.search.setText("approvals")
    tree = dialog.tree
    shown = [tree.topLevelItem(g).text(0) for g in range(tree.topLevelItemCount())
             if not tree.topLevelItem(g).isHidden()]
    assert shown == ["Run"]


def test_the_command_palette_offers_fork_while_a_run_is_replayed(editor_window) -> None:
    fork = editor_window.run_panels.timeline.fork_action
    assert "Fork from here" not in [c.text for c in editor_window.pickers.command_choices()]
    fork.setEnabled(True)  # what loading a run into the scrubber does
    choices = {c.text: c.payload for c in editor_window.pickers.command_choices()}
    assert choices["Fork from here"] is fork


def test_a_search_that_matches_nothing_says_so_and_picks_nothing(editor_window, qtbot) -> None:
    picked = []
    popup = editor_window.popup
    popup.open("Commands", editor_window.pickers.command_choices(), editor_window.pos(),
               picked.append, "Type a command")
    qtbot.keyClicks(popup.edit, "zzqqxx")
    assert popup.list.count() == 1 and popup.list.item(0).text() == "No matches"
    qtbot.keyClick(popup.edit, Qt.Key.Key_Return)
    assert popup.isVisible() and picked == []
    popup.edit.clear()
    assert popup.list.item(0).text() != "No matches"
    qtbot.keyClick(popup.edit, Qt.Key.Key_Return)
    assert len(picked) == 1 and not popup.isVisible()
