"""Diffs read in either theme: in the dark one the header lines (``diff --git``, ``---``,
``+++``) and the changed lines are light on dark, not the light theme's dark text and pale
backgrounds, and switching the theme re-colours the diff and the Result view on show."""

from __future__ import annotations

import pytest
from contrast import contrast, luminance
from PySide6.QtGui import QColor, QPalette, QTextCharFormat
from PySide6.QtWidgets import QPlainTextEdit

from desktop.ui.run.diff_parse import parse_diff
from desktop.ui.run.patch_view import PatchView
from desktop.ui.run.result_view import ResultView
from desktop.ui.theme import DARK, LIGHT, Theme

PATCH = """diff --git a/num_utils.py b/num_utils.py
new file mode 100644
--- /dev/null
+++ b/num_utils.py
@@ -0,0 +1,3 @@
+def clamp(value, low, high):
+    \"\"\"limited\"\"\"  # the range
-    return max(low, min(value, high))
"""
HEADER_LINES = (0, 2, 3)
ADDED_LINE = 5
REMOVED_LINE = 7


def line_formats(edit: QPlainTextEdit, line: int) -> list[QTextCharFormat]:
    """The formats the highlighter gave line ``line`` of ``edit``."""
    ranges = edit.document().findBlockByNumber(line).layout().formats()
    return [QTextCharFormat(r.format) for r in ranges]  # copies: the ranges own theirs


def shown(qtbot, theme: Theme) -> PatchView:
    view = PatchView(theme=theme)
    qtbot.addWidget(view)
    view.show_file(parse_diff(PATCH)[0])
    return view


def background(theme: Theme, fmt: QTextCharFormat) -> QColor:
    """What a character is drawn on: its own background, else the editor's (the base)."""
    brush = fmt.background()
    return brush.color() if brush.style().value else QColor(theme.base)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=lambda t: t.name)
def test_every_coloured_part_of_a_diff_reads_against_what_it_is_drawn_on(qtbot, theme):
    view = shown(qtbot, theme)
    for line in range(view.unified.document().blockCount()):
        for fmt in line_formats(view.unified, line):
            ratio = contrast(fmt.foreground().color(), background(theme, fmt))
            assert ratio >= 4.5, (theme.name, line, fmt.foreground().color().name(), ratio)


def test_dark_diff_headers_are_light_on_the_dark_base_and_added_lines_dark(qtbot):
    view = shown(qtbot, DARK)
    for line in HEADER_LINES:
        [fmt] = line_formats(view.unified, line)
        assert contrast(fmt.foreground().color(), QColor(DARK.base)) >= 7
    added = line_formats(view.unified, ADDED_LINE)[0].background().color()
    assert added == QColor(DARK.diff_add)
    assert luminance(added) < luminance(QColor(DARK.text)) / 4  # a dark green, not pale
    # side by side (line 0 is the hunk's): the old pane's changed line is a removed one,
    # the new pane's an added one
    assert line_formats(view.left, 1)[0].background().color() == QColor(DARK.diff_del)
    assert line_formats(view.right, 1)[0].background().color() == QColor(DARK.diff_add)


def test_switching_the_theme_recolours_the_diff_on_show(qtbot):
    view = shown(qtbot, LIGHT)
    assert line_formats(view.unified, ADDED_LINE)[0].background().color() == \
        QColor(LIGHT.diff_add)
    view.set_theme(DARK)
    [header] = line_formats(view.unified, 0)
    assert header.foreground().color() == QColor(DARK.text)
    assert line_formats(view.unified, ADDED_LINE)[0].background().color() == \
        QColor(DARK.diff_add)
    assert line_formats(view.unified, REMOVED_LINE)[0].background().color() == \
        QColor(DARK.diff_del)
    assert line_formats(view.right, 2)[0].background().color() == QColor(DARK.diff_add)


RESULT = {"branch": "canvas/1/lead", "node": "lead", "repo": "/tmp/repo", "base": "abc",
          "commit": "c1", "files": [{"path": "a.py", "status": "added"},
                                    {"path": "b.py", "status": "deleted"}]}


def test_the_result_views_banner_and_changes_follow_the_theme(qtbot):
    view = ResultView(theme=LIGHT)
    qtbot.addWidget(view)
    view.show_result(RESULT)
    view.show_collision(["b.py"])
    added = view.files.topLevelItem(0)
    assert added.foreground(1).color() == QColor(LIGHT.ok)
    view.set_theme(DARK)
    style = view.note.styleSheet()
    assert f"background: {DARK.diff_del}" in style and f"color: {DARK.text}" in style
    assert "#24292f" not in style
    assert added.foreground(1).color() == QColor(DARK.ok)
    collided = view.files.topLevelItem(1)
    assert collided.foreground(1).color() == QColor(DARK.error)
    assert view.patch._unified_hl.theme is DARK


def test_the_windows_theme_switch_recolours_its_diffs_and_result(editor_window, qtbot):
    window = editor_window
    window.set_theme_choice("light")
    window.run_panels.build()
    diffs, result = window.run_panels.diffs, window.run_panels.result
    diffs.set_diff(PATCH)
    [before] = line_formats(diffs.unified, 0)
    assert before.foreground().color() == QColor(LIGHT.text)
    window.set_theme_choice("dark")
    [after] = line_formats(diffs.unified, 0)
    assert contrast(after.foreground().color(),
                    window.palette().color(QPalette.ColorRole.Base)) >= 7
    assert result.theme is DARK
    window.set_theme_choice("light")
