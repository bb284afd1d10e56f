"""Recovery copies of unsaved work, so a crash (even kill -9) never loses an edit.

Each open window is a session with three files in ``data_dir()/recovery/``:
``<id>.flow.yaml`` (the document), ``<id>.json`` (where it came from) and
``<id>.lock``, held while the window lives. The OS drops the lock when the
process dies, so a copy whose lock can be taken belongs to a crashed session.
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass
from pathlib import Path

import orjson
from filelock import FileLock, Timeout

from desktop.contract.base import utc_now
from desktop.disk.atomic import atomic_write_json, atomic_write_text
from desktop.disk.paths import data_dir
from desktop.disk.safe_json import loads as safe_loads
from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import dumps_workflow, loads_workflow

DOC_SUFFIX = ".flow.yaml"


def recovery_dir() -> Path:
    return data_dir() / "recovery"


@dataclass
class Orphan:
    """Unsaved work left behind by a session that ended without closing."""

    session: str
    folder: Path
    path: str | None
    name: str
    saved_at: str

    def load(self) -> WorkflowDocument:
        text = (self.folder / f"{self.session}{DOC_SUFFIX}").read_text(encoding="utf-8")
        return loads_workflow(text, str(self.folder / f"{self.session}{DOC_SUFFIX}"))

    def discard(self) -> None:
        _remove(self.folder, self.session)


def _remove(folder: Path, session: str) -> None:
    for suffix in (DOC_SUFFIX, ".json", ".lock"):
        with contextlib.suppress(OSError):
            (folder / f"{session}{suffix}").unlink()


class RecoverySession:
    """This window's recovery copy: written on change, removed when nothing is unsaved."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder or recovery_dir()
        self.id = uuid.uuid4().hex[:16]
        self._lock: FileLock | None = None
        self.has_copy = False

    def _ensure_lock(self) -> None:
        if self._lock is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._lock = FileLock(str(self.folder / f"{self.id}.lock"))
            self._lock.acquire(timeout=0)

    def write(self, doc: WorkflowDocument, path: str | None) -> None:
        """Save a recovery copy of ``doc`` (which belongs at ``path``, None if untitled)."""
        self._ensure_lock()
        atomic_write_text(self.folder / f"{self.id}{DOC_SUFFIX}", dumps_workflow(doc))
        atomic_write_json(self.folder / f"{self.id}.json",
                          {"path": path, "name": doc.name, "savedAt": utc_now()})
        self.has_copy = True

    def clear(self) -> None:
        """Nothing is unsaved any more: drop the copy (keep the lock while open)."""
        if self.has_copy:
            for suffix in (DOC_SUFFIX, ".json"):
                with contextlib.suppress(OSError):
                    (self.folder / f"{self.id}{suffix}").unlink()
            self.has_copy = False

    def close(self) -> None:
        """The window closed cleanly: remove everything, release the lock."""
        self.clear()
        if self._lock is not None:
            self._lock.release()
            self._lock = None
            with contextlib.suppress(OSError):
                (self.folder / f"{self.id}.lock").unlink()


def find_orphans(folder: Path | None = None) -> list[Orphan]:
    """Recovery copies whose session is gone (its lock is free), newest first."""
    folder = folder or recovery_dir()
    if not folder.is_dir():
        return []
    found = []
    for doc_path in folder.glob(f"*{DOC_SUFFIX}"):
        session = doc_path.name[: -len(DOC_SUFFIX)]
        lock = FileLock(str(folder / f"{session}.lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            continue  # a live window owns it
        lock.release()
        meta: dict = {}
        with contextlib.suppress(OSError, orjson.JSONDecodeError):
            meta = safe_loads((folder / f"{session}.json").read_bytes())
        found.append(Orphan(session, folder, meta.get("path"), meta.get("name") or session,
                            meta.get("savedAt") or ""))
    return sorted(found, key=lambda o: o.saved_at, reverse=True)


__all__ = ["Orphan", "RecoverySession", "WorkflowLoadError", "find_orphans", "recovery_dir"]
