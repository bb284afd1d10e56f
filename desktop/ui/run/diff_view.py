"""The diff viewer: a turn's ``diff.patch`` as a file list, unified and side-by-side views.

It follows the canvas selection like the Conversation tab (``set_node``: only that
node's turns are offered), and its node list picks another node, or all of them.

A run the service holds has its diffs fetched through the API by artifact id
(:attr:`DiffView.fetch`), so the view works against a service on another machine; a run
opened from its folder reads them from there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.open_path import open_in_editor
from desktop.ui.run.diff_parse import FileDiff, parse_diff
from desktop.ui.run.node_picker import node_combo, pin_button
from desktop.ui.run.patch_view import PatchView
from desktop.ui.theme import LIGHT, Theme
from desktop.views.notices import DiffAdded

NO_DIFFS = "No diff yet: each turn of a run that changes files adds its diff here."
"""What the view says while it offers no diff (no run shown, or none has changed a file):
blank panes looked broken."""


def node_workspace(state: dict | None, run_dir: Path, node_id: str | None) -> Path:
    """The folder node ``node_id`` of a run works in, by the runtime's own rule."""
    from desktop.views.node_folder import node_folder

    return node_folder(state, Path(run_dir), node_id).resolve()


@dataclass(frozen=True)
class DiffEntry:
    """One turn's diff on offer."""

    title: str
    path: Path
    """The ``diff.patch`` in the run's folder (read when no :attr:`DiffView.fetch` is set)."""
    base_dir: Path | None
    node_id: str | None
    artifact_id: str = ""


class DiffView(QWidget):
    """Diffs of a run: pick a turn's diff, then a file; unified or side by side."""

    fileOpened = Signal(str)

    def __init__(self, parent: QWidget | None = None, theme: Theme = LIGHT) -> None:
        super().__init__(parent)
        self.base_dir: Path | None = None  # the workspace of the diff on show
        self.files: list[FileDiff] = []
        self.diffs: list[DiffEntry] = []
        # a diff's text by artifact id, from the service (None: read the run's folder)
        self.fetch: Callable[[str], Awaitable[str]] | None = None
        self._fetching: asyncio.Task[None] | None = None
        self.node: str | None = None  # whose turns are offered (None: every node's)
        self.opener = open_in_editor  # replaceable (tests, embedding)
        self.node_combo = node_combo("diffNode", 14)
        self.node_combo.setToolTip("Whose turns: follows the node selected on the canvas")
        self.node_combo.currentIndexChanged.connect(self._pick_node)
        self.source = QComboBox()
        self.source.currentIndexChanged.connect(self._load_selected)
        # the newest diff is shown as turns end, until the user picks one
        self.follow_latest = True
        self.source.activated.connect(lambda _i: setattr(self, "follow_latest", False))
        self.open_button = QPushButton("Open in editor")
        self.open_button.clicked.connect(self.open_current)
        self.open_button.setEnabled(False)  # until a file is selected
        # what became of Open in editor when nothing could open the file (else hidden)
        self.open_note = QLabel()
        self.open_note.setProperty("role", "error")
        self.open_note.setWordWrap(True)
        self.open_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_note.hide()
        top = QHBoxLayout()
        top.addWidget(self.node_combo)
        self.pin = pin_button()
        top.addWidget(self.pin)
        top.addWidget(self.source, 1)
        top.addWidget(self.open_button)
        self.file_list = QListWidget()
        self.file_list.currentRowChanged.connect(self._show_file)
        self.tabs = PatchView(theme=theme)
        self.unified, self.left, self.right = self.tabs.unified, self.tabs.left, self.tabs.right
        split = QSplitter()
        split.addWidget(self.file_list)
        split.addWidget(self.tabs)
        split.setSizes([180, 600])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(self.open_note)
        layout.addWidget(split, 1)
        self.tabs.show_text(NO_DIFFS)

    def set_theme(self, theme: Theme) -> None:
        """Colour the diffs in ``theme`` (the one on show is coloured again)."""
        self.tabs.set_theme(theme)

    def add_diff(self, title: str, path: Path, base_dir: Path | None = None,
                 node_id: str | None = None, artifact_id: str = "") -> None:
        """Offer another diff (one turn of one node); its paths are relative to ``base_dir``."""
        self.diffs.append(DiffEntry(title, Path(path), base_dir, node_id, artifact_id))
        if self.node is None or node_id == self.node:
            self.source.addItem(title, len(self.diffs) - 1)

    def clear(self) -> None:
        """Forget every diff (another run is shown)."""
        self.cancel_fetch()
        self.fetch = None
        self.diffs.clear()
        self.files.clear()
        self.base_dir = None
        self.follow_latest = True
        self.source.clear()
        self.file_list.clear()
        self.tabs.show_text(NO_DIFFS)
        self.node = None
        self.node_combo.blockSignals(True)
        self.node_combo.clear()
        self.node_combo.addItem("All nodes", None)
        self.node_combo.blockSignals(False)

    def set_nodes(self, labels: dict[str, str]) -> None:
        """The run's nodes (id -> label), offered in the node list."""
        known = {self.node_combo.itemData(i) for i in range(1, self.node_combo.count())}
        for node_id, label in labels.items():
            if node_id not in known:
                self.node_combo.addItem(label, node_id)

    def follow_selection(self, node_id: str | None) -> None:
        """The canvas selected ``node_id`` (None: not one node): shown unless pinned."""
        if not self.pin.isChecked():
            self.set_node(node_id)

    def set_node(self, node_id: str | None) -> None:
        """Offer only ``node_id``'s turns (None: every node's), the newest one shown."""
        i = self.node_combo.findData(node_id)
        if i < 0 and node_id is not None:
            self.node_combo.addItem(node_id[:8], node_id)
            i = self.node_combo.count() - 1
        self.node_combo.setCurrentIndex(max(0, i))

    def _pick_node(self, _index: int) -> None:
        self.node = self.node_combo.currentData()
        self.source.blockSignals(True)
        self.source.clear()
        for index, entry in enumerate(self.diffs):
            if self.node is None or entry.node_id == self.node:
                self.source.addItem(entry.title, index)
        self.source.blockSignals(False)
        if self.source.count():
            self.source.setCurrentIndex(self.source.count() - 1)
            self._load_selected(self.source.currentIndex())
        else:  # nothing of this node's yet: say so rather than show another node's diff
            self.files = []
            self.file_list.clear()
            self.open_button.setEnabled(False)
            name = self.node_combo.currentText()
            self.tabs.show_text(f"(no diff from {name} yet)")

    def add_notice(self, diff: DiffAdded, run_dir: Path, labels: dict[str, str],
                   state: dict | None = None) -> None:
        """Add a turn's diff; ``state`` (the run's) says which workspace the node's files
        are in."""
        path = Path(diff.path)
        path = path if path.is_absolute() else Path(run_dir) / path
        node = labels.get(diff.node_id or "", "")
        self.add_diff(f"{node} · {diff.created_at[11:19]} · {path.parent.name}", path,
                      node_workspace(state, run_dir, diff.node_id), diff.node_id,
                      diff.artifact_id)
        if self.source.count() and (self.follow_latest or not self.files):
            self.source.setCurrentIndex(self.source.count() - 1)

    def _load_selected(self, index: int) -> None:
        picked = self.source.itemData(index) if index >= 0 else None
        if not (isinstance(picked, int) and 0 <= picked < len(self.diffs)):
            return
        entry = self.diffs[picked]
        self.base_dir = entry.base_dir
        self.cancel_fetch()
        if self.fetch is not None and entry.artifact_id:
            self.files = []
            self.file_list.clear()
            self.tabs.show_text("(fetching the diff from the service…)")
            self._fetching = asyncio.ensure_future(self._fetch(entry, self.fetch))
            return
        try:
            text = entry.path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            text = ""
            self.unified.setPlainText(f"cannot read the diff: {exc}")
        self.set_diff(text)

    async def _fetch(self, entry: DiffEntry, fetch: Callable[[str], Awaitable[str]]) -> None:
        try:
            text = await fetch(entry.artifact_id)
        except Exception as exc:  # the service is gone or refused: say so in place
            self.tabs.show_text(f"cannot fetch the diff from the service: {exc}")
            return
        picked = self.source.currentData()
        if isinstance(picked, int) and 0 <= picked < len(self.diffs) \
                and self.diffs[picked] is entry:
            self.set_diff(text)

    @property
    def fetching(self) -> bool:
        """A diff is on its way from the service."""
        return self._fetching is not None and not self._fetching.done()

    def cancel_fetch(self) -> None:
        """Drop a fetch still under way (another diff or run is shown, or the view goes)."""
        if self._fetching is not None and not self._fetching.done():
            self._fetching.cancel()
        self._fetching = None

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
        self.open_button.setEnabled(self.file_list.currentRow() >= 0)

    def _show_file(self, row: int) -> None:
        self.open_note.hide()
        self.open_button.setEnabled(0 <= row < len(self.files))
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
        if path is None:
            return
        if self.opener(path) is False:  # no editor and no desktop application took it
            self.open_note.setText(f"Nothing could open {path}: set $VISUAL or $EDITOR to "
                                   "your editor, or give the desktop an application for it.")
            self.open_note.show()
            return
        self.open_note.hide()
        self.fileOpened.emit(str(path))
