"""The diff viewer: a turn's ``diff.patch`` as a file list, unified and side-by-side views."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QFont,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.run.diff_parse import FileDiff, parse_diff, side_by_side

_KEYWORDS = re.compile(
    r"\b(def|class|return|import|from|if|elif|else|for|while|try|except|finally|with|as|"
    r"raise|yield|lambda|async|await|function|const|let|var|fn|pub|struct|impl|True|False|None|"
    r"null|true|false)\b")
_STRINGS = re.compile(r"(\"[^\"\n]*\"|'[^'\n]*')")
_COMMENT = re.compile(r"(#|//).*$")


def _fmt(color: str, *, bold: bool = False, background: str | None = None) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    if background:
        fmt.setBackground(QColor(background))
    return fmt


class CodeHighlighter(QSyntaxHighlighter):
    """Diff colours per line plus light code highlighting (keywords, strings, comments)."""

    def __init__(self, document: QTextDocument, line_kinds: list[str] | None = None) -> None:
        super().__init__(document)
        self.line_kinds = line_kinds  # side-by-side: kind per block; None: read +/- prefixes
        self._bg = {"add": "#e6ffec", "del": "#ffebe9", "chg": "#fff8c5", "hunk": "#ddf4ff"}
        self._kw = _fmt("#8250df", bold=True)
        self._str = _fmt("#0a3069")
        self._comment = _fmt("#6e7781")

    def highlightBlock(self, text: str) -> None:
        kind = None
        if self.line_kinds is not None:
            n = self.currentBlock().blockNumber()
            kind = self.line_kinds[n] if n < len(self.line_kinds) else None
        elif text.startswith("@@"):
            kind = "hunk"
        elif text.startswith(("+++", "---", "diff --git")):
            self.setFormat(0, len(text), _fmt("#24292f", bold=True))
            return
        elif text.startswith("+"):
            kind = "add"
        elif text.startswith("-"):
            kind = "del"
        if kind in self._bg:
            self.setFormat(0, len(text), _fmt("#24292f", background=self._bg[kind]))
        if kind == "hunk":
            return
        for rx, fmt in ((_KEYWORDS, self._kw), (_STRINGS, self._str), (_COMMENT, self._comment)):
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


def node_workspace(state: dict | None, run_dir: Path, node_id: str | None) -> Path:
    """The folder node ``node_id`` of a run works in, by the runtime's own rule."""
    from desktop.runtime.workspace import node_folder

    return node_folder(state, Path(run_dir), node_id).resolve()


def open_in_editor(path: Path) -> bool:
    """Open ``path`` in $VISUAL / $EDITOR, else the desktop's default application."""
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if command:
        try:
            subprocess.Popen([*shlex.split(command), str(path)], start_new_session=True)
            return True
        except OSError:
            pass
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class DiffView(QWidget):
    """Diffs of a run: pick a turn's diff, then a file; unified or side by side."""

    fileOpened = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.base_dir: Path | None = None  # the workspace of the diff on show
        self.files: list[FileDiff] = []
        self.diffs: list[tuple[str, Path, Path | None]] = []  # (title, diff.patch, workspace)
        self.opener = open_in_editor  # replaceable (tests, embedding)
        self.source = QComboBox()
        self.source.currentIndexChanged.connect(self._load_selected)
        # the newest diff is shown as turns end, until the user picks one
        self.follow_latest = True
        self.source.activated.connect(lambda _i: setattr(self, "follow_latest", False))
        self.open_button = QPushButton("Open in editor")
        self.open_button.clicked.connect(self.open_current)
        top = QHBoxLayout()
        top.addWidget(self.source, 1)
        top.addWidget(self.open_button)
        self.file_list = QListWidget()
        self.file_list.currentRowChanged.connect(self._show_file)
        self.unified = _mono_edit()
        self._unified_hl = CodeHighlighter(self.unified.document())
        self.left, self.right = _mono_edit(), _mono_edit()
        self._left_hl = CodeHighlighter(self.left.document(), [])
        self._right_hl = CodeHighlighter(self.right.document(), [])
        self.left.verticalScrollBar().valueChanged.connect(
            self.right.verticalScrollBar().setValue)
        self.right.verticalScrollBar().valueChanged.connect(
            self.left.verticalScrollBar().setValue)
        sbs = QSplitter()
        sbs.addWidget(self.left)
        sbs.addWidget(self.right)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.unified, "Unified")
        self.tabs.addTab(sbs, "Side by side")
        split = QSplitter()
        split.addWidget(self.file_list)
        split.addWidget(self.tabs)
        split.setSizes([180, 600])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(split, 1)

    def add_diff(self, title: str, path: Path, base_dir: Path | None = None) -> None:
        """Offer another diff (one turn of one node); its paths are relative to ``base_dir``."""
        self.diffs.append((title, Path(path), base_dir))
        self.source.addItem(title)

    def clear(self) -> None:
        """Forget every diff (another run is shown)."""
        self.diffs.clear()
        self.files.clear()
        self.base_dir = None
        self.follow_latest = True
        self.source.clear()
        self.file_list.clear()
        self.unified.clear()
        self.left.clear()
        self.right.clear()

    def apply_events(self, events: list[dict], run_dir: Path, labels: dict[str, str],
                     state: dict | None = None) -> None:
        """Add the diffs announced by ``artifact.created`` (kind diff) events; ``state``
        (the run's) says which workspace each node's files are in."""
        for event in events:
            art = event.get("artifact") or {}
            if event.get("type") == "artifact.created" and art.get("kind") == "diff":
                node_id = art.get("nodeId") or event.get("nodeId")
                node = labels.get(node_id or "", "")
                path = Path(art.get("path", ""))
                path = path if path.is_absolute() else Path(run_dir) / path
                self.add_diff(f"{node} · {art.get('createdAt', '')[11:19]} · {path.parent.name}",
                              path, node_workspace(state, run_dir, node_id))
        if self.source.count() and (self.follow_latest or not self.files):
            self.source.setCurrentIndex(self.source.count() - 1)

    def _load_selected(self, index: int) -> None:
        if 0 <= index < len(self.diffs):
            self.base_dir = self.diffs[index][2]
            try:
                text = self.diffs[index][1].read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                text = ""
                self.unified.setPlainText(f"cannot read the diff: {exc}")
            self.set_diff(text)

    def set_diff(self, text: str, base_dir: Path | None = None) -> None:
        """Show a unified diff's files."""
        if base_dir is not None:
            self.base_dir = base_dir
        self.files = parse_diff(text)
        self.file_list.clear()
        for f in self.files:
            item = QListWidgetItem(f"+{f.added} -{f.removed}  {f.path or f.old_path}")
            self.file_list.addItem(item)
        if self.files:
            self.file_list.setCurrentRow(0)
        else:
            self.unified.setPlainText("(no changes)")
            self.left.clear()
            self.right.clear()

    def _show_file(self, row: int) -> None:
        if not 0 <= row < len(self.files):
            return
        diff = self.files[row]
        self.unified.setPlainText(diff.text)
        rows = side_by_side(diff)
        kinds = [k for k, _l, _r in rows]
        self._left_hl.line_kinds = ["del" if k in ("del", "chg") else k for k in kinds]
        self._right_hl.line_kinds = ["add" if k in ("add", "chg") else k for k in kinds]
        self.left.setPlainText("\n".join(left for _k, left, _r in rows))
        self.right.setPlainText("\n".join(right for _k, _l, right in rows))

    def current_path(self) -> Path | None:
        """Where the selected file is on disk (relative to the workspace, if known)."""
        row = self.file_list.currentRow()
        if not 0 <= row < len(self.files):
            return None
        rel = self.files[row].path or self.files[row].old_path
        return (self.base_dir / rel) if self.base_dir else Path(rel)

    def open_current(self) -> None:
        """Open the selected file in the user's editor."""
        path = self.current_path()
        if path is not None:
            self.opener(path)
            self.fileOpened.emit(str(path))
