"""The diff viewer: a turn's ``diff.patch`` as a file list, unified and side-by-side views."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.run.diff_parse import FileDiff, parse_diff
from desktop.ui.run.patch_view import PatchView


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
        self.tabs = PatchView()
        self.unified, self.left, self.right = self.tabs.unified, self.tabs.left, self.tabs.right
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
        self.tabs.clear()

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
            self.tabs.show_text("(no changes)")

    def _show_file(self, row: int) -> None:
        if not 0 <= row < len(self.files):
            return
        self.tabs.show_file(self.files[row])

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
