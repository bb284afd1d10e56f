"""The file behind an editor: open, save, revert, autosave to recovery, disk watching."""

from __future__ import annotations

import errno
import hashlib
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from shiboken6 import isValid

from desktop.disk.atomic import read_only
from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import Problem
from desktop.graph.io import dumps_workflow, save_workflow
from desktop.graph.lenient import open_workflow
from desktop.graph.subflows import rebase_subflows
from desktop.ui.editor import Editor, fill_missing_positions
from desktop.ui.recovery import RecoverySession

AUTOSAVE_MS = 1500


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class WorkflowFile(QObject):
    """Tracks where the document lives, whether it is modified, and keeps a recovery copy."""

    modifiedChanged = Signal(bool)
    pathChanged = Signal(str)
    changedOnDisk = Signal(str)
    leftOutChanged = Signal(list)  # list[Problem]: wrong fields left out on opening

    def __init__(self, editor: Editor, parent: QObject | None = None,
                 recovery: RecoverySession | None = None):
        super().__init__(parent)
        self.editor = editor
        self.path: Path | None = None
        self.recovery = recovery or RecoverySession()
        self._forced_dirty = False
        self._disk_digest: str | None = None
        self._was_modified = False
        self.left_out: list[Problem] = []
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_changed)
        self._autosave = QTimer(self, singleShot=True, interval=AUTOSAVE_MS)
        self._autosave.timeout.connect(self.autosave_now)
        editor.model.changed.connect(self._on_edit)
        editor.undo_stack.cleanChanged.connect(self._emit_modified)

    # ---------------------------------------------------------------- state
    def is_modified(self) -> bool:
        return self._forced_dirty or not self.editor.undo_stack.isClean()

    def display_name(self) -> str:
        return self.path.name if self.path else "Untitled"

    def _emit_modified(self, *_: object) -> None:
        if not isValid(self.editor.undo_stack):  # torn down with its window
            return
        now = self.is_modified()
        if now != self._was_modified:
            self._was_modified = now
            self.modifiedChanged.emit(now)

    def _on_edit(self) -> None:
        # a timer already running is not restarted: a copy lands within seconds even
        # while the user keeps editing
        if not self._autosave.isActive():
            self._autosave.start()
        self._emit_modified()

    def autosave_now(self) -> None:
        """Write (or drop) the recovery copy to match the unsaved state right now."""
        self._autosave.stop()
        if self.is_modified():
            self.recovery.write(self.editor.model.doc, str(self.path) if self.path else None)
        else:
            self.recovery.clear()

    # ---------------------------------------------------------------- file operations
    def new(self, doc: WorkflowDocument | None = None) -> None:
        self._set_path(None)
        self._replace(doc or WorkflowDocument())
        self._disk_digest = None
        self._set_left_out([])

    def open(self, path: str | Path) -> None:
        """Load ``path`` into the editor; WorkflowLoadError if it cannot be opened. Wrong
        fields are left out and listed in ``left_out`` (desktop/graph/lenient.py)."""
        path = Path(path).expanduser().resolve()
        doc, left_out = open_workflow(path)
        self._set_path(path)
        self._disk_digest = _digest(path.read_bytes())
        self._replace(fill_missing_positions(doc))
        self._set_left_out(left_out)

    def _set_left_out(self, problems: list[Problem]) -> None:
        if problems or self.left_out:
            self.left_out = problems
            self.leftOutChanged.emit(problems)

    def restore(self, doc: WorkflowDocument, path: str | None) -> None:
        """Take over a recovered document; it stays modified until saved."""
        self._set_path(Path(path) if path else None)
        if self.path and self.path.is_file():
            self._disk_digest = _digest(self.path.read_bytes())
        self._replace(fill_missing_positions(doc))
        self._forced_dirty = True
        self._emit_modified()
        self.autosave_now()

    def save(self, path: str | Path | None = None) -> Path:
        """Write the document (to ``path``, or where it came from); returns the path."""
        target = Path(path).expanduser().resolve() if path else self.path
        if target is None:
            raise ValueError("the document has no file yet; give a path (Save As)")
        if read_only(target):  # saving by rename would replace it all the same
            raise PermissionError(errno.EACCES, "the file is read-only; use Save As to save "
                                  f"elsewhere, or make it writable (chmod u+w {target})")
        if target != self.path:  # Save As elsewhere: subflow paths follow the file
            rebase_subflows(self.editor.model.doc, self.path, target)
        text = dumps_workflow(self.editor.model.doc)
        save_workflow(self.editor.model.doc, target)
        self._disk_digest = _digest(text.encode("utf-8"))
        self._set_path(target)
        self._forced_dirty = False
        self.editor.undo_stack.setClean()
        self._emit_modified()
        self.autosave_now()
        self._set_left_out([])  # the file now holds what the editor shows
        return target

    def revert(self) -> None:
        """Throw away unsaved changes: reload from disk (or empty an untitled document)."""
        if self.path is None:
            self.new()
        else:
            self.open(self.path)

    def close(self) -> None:
        """The window closes with nothing to keep: drop the recovery copy and its lock."""
        self._autosave.stop()
        self.recovery.close()

    # ---------------------------------------------------------------- watching the disk
    def _set_path(self, path: Path | None) -> None:
        if self._watcher.files():
            self._watcher.removePaths(self._watcher.files())
        self.path = path
        if path is not None and path.exists():
            self._watcher.addPath(str(path))
        self.pathChanged.emit(str(path) if path else "")

    def _on_file_changed(self, changed: str) -> None:
        # atomic saves replace the file, which ends the watch: watch the new one
        if self.path is not None and self.path.exists() and str(self.path) not in \
                self._watcher.files():
            self._watcher.addPath(str(self.path))
        self.check_disk()

    def check_disk(self) -> bool:
        """Whether the file on disk differs from what we last read or wrote (signals if so)."""
        if self.path is None or not self.path.is_file():
            return False
        try:
            digest = _digest(self.path.read_bytes())
        except OSError:
            return False
        if digest == self._disk_digest:
            return False
        self._disk_digest = digest  # ask once per outside change
        self.changedOnDisk.emit(str(self.path))
        return True

    def _replace(self, doc: WorkflowDocument) -> None:
        self._forced_dirty = False
        self.editor.undo_stack.clear()
        self.editor.model.reset(doc)
        self.editor.undo_stack.setClean()
        self._emit_modified()
        self.autosave_now()
