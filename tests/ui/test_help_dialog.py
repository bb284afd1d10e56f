"""The F1 dialog lists every shortcut, the run toolbar's included."""

from desktop.ui.help_dialog import ShortcutsDialog


def _rows(dialog: ShortcutsDialog) -> dict[str, dict[str, str]]:
    tree = dialog.tree
    out: dict[str, dict[str, str]] = {}
    for g in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(g)
        out[group.text(0)] = {group.child(i).text(0): group.child(i).text(1)
                              for i in range(group.childCount())}
    return out


def test_run_toolbar_shortcuts_are_listed(editor_window):
    rows = _rows(ShortcutsDialog(editor_window))
    run = rows["Run"]
    assert run["Run"] == "F5" and run["Run interactively"] == "Shift+F5"
    assert run["Step"] == "F10"
    assert "Ctrl+Shift+A" in run.values()
    assert len(rows) > 1  # the menu table's groups are there too


def test_filter_hides_rows_that_do_not_match(editor_window):
    dialog = ShortcutsDialog(editor_window)
    dialog.search.setText("F10")
    visible = [dialog.tree.topLevelItem(g).child(i).text(0)
               for g in range(dialog.tree.topLevelItemCount())
               for i in range(dialog.tree.topLevelItem(g).childCount())
               if not dialog.tree.topLevelItem(g).child(i).isHidden()]
    assert visible == ["Step"]
