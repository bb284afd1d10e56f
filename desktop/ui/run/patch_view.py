"""One file's diff, shown unified and side by side (two panes scrolled together), with
diff colours and light code highlighting; the Diffs panel and the Result view use it."""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QPlainTextEdit, QSplitter, QTabWidget, QWidget

from desktop.ui import theme as themes
from desktop.ui.run.diff_parse import FileDiff, side_by_side
from desktop.ui.theme import Theme

_KEYWORDS = re.compile(
    r"\b(def|class|return|import|from|if|elif|else|for|while|try|except|finally|with|as|"
    r"raise|yield|lambda|async|await|function|const|let|var|fn|pub|struct|impl|True|False|None|"
    r"null|true|false)\b")
_STRINGS = re.compile(r"(\"[^\"\n]*\"|'[^'\n]*')")
_HASH_COMMENT = re.compile(r"#.*$")
_SLASH_COMMENT = re.compile(r"//.*$")
_COMMENTS = {
    **dict.fromkeys((".py", ".pyi", ".sh", ".bash", ".rb", ".pl", ".r", ".yaml", ".yml",
                     ".toml", ".cfg", ".ini", ".mk"), _HASH_COMMENT),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".rs", ".go", ".java",
                     ".kt", ".swift", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".php",
                     ".scala", ".dart"), _SLASH_COMMENT),
}
"""Source files by suffix, with their comment syntax. Other files (prose, data) get no
code colours: an apostrophe in a README is not a string, nor "from" a keyword."""


def code_comment(path: str) -> re.Pattern[str] | None:
    """The comment pattern of the language of ``path``, or None when it is not code."""
    name = path.rsplit("/", 1)[-1].lower()
    if name in ("makefile", "dockerfile"):
        return _HASH_COMMENT
    dot = name.rfind(".")
    return _COMMENTS.get(name[dot:]) if dot > 0 else None


def _fmt(color: str, *, bold: bool = False, background: str | None = None) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    if background:
        fmt.setBackground(QColor(background))
    return fmt


class CodeHighlighter(QSyntaxHighlighter):
    """Diff colours per line plus light code highlighting (keywords, strings, comments),
    in the colours of a theme."""

    def __init__(self, document: QTextDocument, line_kinds: list[str] | None = None,
                 theme: Theme | None = None) -> None:
        super().__init__(document)
        self.line_kinds = line_kinds  # side-by-side: kind per block; None: read +/- prefixes
        self.comment: re.Pattern[str] | None = _HASH_COMMENT
        """The shown file's comment syntax; None: not code, so diff colours only."""
        self._use(theme or themes.current())

    def _use(self, theme: Theme) -> None:
        self.theme = theme
        backgrounds = {"add": theme.diff_add, "del": theme.diff_del, "chg": theme.diff_chg,
                       "hunk": theme.diff_hunk}
        self.header = _fmt(theme.text, bold=True)  # diff --git, ---, +++
        self.lines = {kind: _fmt(theme.text, background=bg) for kind, bg in backgrounds.items()}
        self._kw = _fmt(theme.code_keyword, bold=True)
        self._str = _fmt(theme.code_string)
        self._comment = _fmt(theme.code_comment)

    def set_theme(self, theme: Theme) -> None:
        """Colour the text in ``theme`` from now on, what is shown included."""
        self._use(theme)
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        kind = None
        if self.line_kinds is not None:
            n = self.currentBlock().blockNumber()
            kind = self.line_kinds[n] if n < len(self.line_kinds) else None
        elif text.startswith("@@"):
            kind = "hunk"
        elif text.startswith(("+++", "---", "diff --git")):
            self.setFormat(0, len(text), self.header)
            return
        elif text.startswith("+"):
            kind = "add"
        elif text.startswith("-"):
            kind = "del"
        if kind in self.lines:
            self.setFormat(0, len(text), self.lines[kind])
        if kind == "hunk" or self.comment is None:
            return
        for rx, fmt in ((_KEYWORDS, self._kw), (_STRINGS, self._str),
                        (self.comment, self._comment)):
            for m in rx.finditer(text):
                merged = QTextCharFormat(self.format(m.start()))
                merged.merge(fmt)
                self.setFormat(m.start(), m.end() - m.start(), merged)


def _mono_edit() -> QPlainTextEdit:
    edit = QPlainTextEdit()
    edit.setReadOnly(True)
    edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    edit.setFont(QFont("monospace"))
    return edit


class PatchView(QTabWidget):
    """A file's diff in two tabs: Unified, and Side by side (old left, new right)."""

    def __init__(self, parent: QWidget | None = None, theme: Theme | None = None) -> None:
        super().__init__(parent)
        theme = theme or themes.current()
        self.unified = _mono_edit()
        self._unified_hl = CodeHighlighter(self.unified.document(), theme=theme)
        self.left, self.right = _mono_edit(), _mono_edit()
        self._left_hl = CodeHighlighter(self.left.document(), [], theme)
        self._right_hl = CodeHighlighter(self.right.document(), [], theme)
        self.left.verticalScrollBar().valueChanged.connect(
            self.right.verticalScrollBar().setValue)
        self.right.verticalScrollBar().valueChanged.connect(
            self.left.verticalScrollBar().setValue)
        sbs = QSplitter()
        sbs.addWidget(self.left)
        sbs.addWidget(self.right)
        self.addTab(self.unified, "Unified")
        self.addTab(sbs, "Side by side")
        # the tabs down the side: a bottom panel is wide and short, its height is for lines
        self.setTabPosition(QTabWidget.TabPosition.West)
        self.setDocumentMode(True)

    def set_theme(self, theme: Theme) -> None:
        """Show the diff in ``theme``'s colours (the one on show is coloured again)."""
        for highlighter in (self._unified_hl, self._left_hl, self._right_hl):
            highlighter.set_theme(theme)

    def show_file(self, diff: FileDiff) -> None:
        """Show one file's diff in both tabs."""
        comment = code_comment(diff.path)
        for highlighter in (self._unified_hl, self._left_hl, self._right_hl):
            highlighter.comment = comment
        self.unified.setPlainText(diff.text)
        rows = side_by_side(diff)
        kinds = [k for k, _l, _r in rows]
        self._left_hl.line_kinds = ["del" if k in ("del", "chg") else k for k in kinds]
        self._right_hl.line_kinds = ["add" if k in ("add", "chg") else k for k in kinds]
        self.left.setPlainText("\n".join(left for _k, left, _r in rows))
        self.right.setPlainText("\n".join(right for _k, _l, right in rows))

    def show_text(self, text: str) -> None:
        """A note instead of a diff (no changes, a diff that could not be read)."""
        # a sentence, not code: the "from" of "no diff from X yet" is no keyword
        for highlighter in (self._unified_hl, self._left_hl, self._right_hl):
            highlighter.comment = None
        self.unified.setPlainText(text)
        self.left.clear()
        self.right.clear()

    def clear(self) -> None:
        """Show nothing."""
        self.show_text("")
