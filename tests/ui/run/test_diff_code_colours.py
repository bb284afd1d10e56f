"""Code colours in a diff only where the file is code: a Python file's keywords, strings
and comments are coloured, while a text or Markdown file's words ("from", an apostrophe,
a heading's ``#``) keep the line's plain colour."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor

from desktop.ui.run.diff_parse import parse_diff
from desktop.ui.run.patch_view import PatchView, code_comment
from desktop.ui.theme import LIGHT


def patch(path: str, line: str) -> str:
    return (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n"
            f"-old\n+{line}\n")


def colours_of_added_line(qtbot, path: str, line: str) -> set[str]:
    view = PatchView(theme=LIGHT)
    qtbot.addWidget(view)
    view.show_file(parse_diff(patch(path, line))[0])
    block = view.unified.document().findBlockByNumber(5)
    assert block.text() == "+" + line
    return {r.format.foreground().color().name() for r in block.layout().formats()}


@pytest.mark.parametrize("path", ["README.md", "notes.txt", "a.txt", "CHANGELOG", "data.csv"])
def test_prose_and_data_files_get_no_code_colours(qtbot, path: str) -> None:
    line = "# Notes from the team: don't 'import' this, it's for None of us"
    assert colours_of_added_line(qtbot, path, line) == {QColor(LIGHT.text).name()}


@pytest.mark.parametrize(("path", "line"), [("src/m.py", "return None  # done"),
                                             ("app.ts", "return null  // done"),
                                             ("Makefile", "if true  # done")])
def test_code_files_get_keyword_and_comment_colours(qtbot, path: str, line: str) -> None:
    colours = colours_of_added_line(qtbot, path, line)
    assert QColor(LIGHT.code_keyword).name() in colours
    assert QColor(LIGHT.code_comment).name() in colours


def test_each_language_has_its_comment_syntax() -> None:
    assert code_comment("a/b.py").pattern.startswith("#")
    assert code_comment("x.rs").pattern.startswith("//")
    assert code_comment("Dockerfile").pattern.startswith("#")
    assert code_comment("README.md") is None and code_comment(".bashrc") is None


@pytest.mark.parametrize("before", [None, "src/m.py"])
def test_a_note_in_place_of_a_diff_gets_no_code_colours(qtbot, before: str | None) -> None:
    """The Diffs panel's "(no diff from Orchestrator yet)" had "from" in the keyword
    colour: the note was highlighted as the code last shown (or as Python)."""
    view = PatchView(theme=LIGHT)
    qtbot.addWidget(view)
    if before is not None:
        view.show_file(parse_diff(patch(before, "return None  # done"))[0])
    view.show_text("(no diff from Orchestrator yet, and None 'of' it # here)")
    block = view.unified.document().firstBlock()
    assert {r.format.foreground().color().name() for r in block.layout().formats()} \
        <= {QColor(LIGHT.text).name()}
