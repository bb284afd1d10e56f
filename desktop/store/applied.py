"""``applied.json`` in a run folder: each time the run's result was taken into the user's
repository (onto their working tree, or as a branch).

Applying happens after the run ended, often from another process than the one that
wrote its log (the CLI while the service holds the run), so it is kept beside the log
rather than appended to it: the log keeps one writer. Each record is written
atomically, the whole list at once; a file that cannot be read counts as no record.

An application onto the working tree is recorded before it writes a file, marked
``underWay``, and the mark is taken off once every file is written (or the record
taken back when none was): one killed meanwhile is still recorded, with the ref that
undoes it, and a record still marked when no apply runs (desktop/runtime/apply_lock.py)
is one that was cut short, perhaps after only some of its files.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from desktop.disk.atomic import atomic_write_json
from desktop.disk.safe_json import JSONDecodeError, load_file

APPLIED_FILE = "applied.json"
_guard = threading.Lock()


def read_applied(run_dir: Path) -> list[dict[str, Any]]:
    """The run's application records, oldest first ([] when there are none)."""
    try:
        data = load_file(Path(run_dir) / APPLIED_FILE, limit=4_000_000)
    except (OSError, JSONDecodeError, ValueError):
        return []
    items = data.get("applied") if isinstance(data, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def record_applied(run_dir: Path, record: dict[str, Any]) -> None:
    """Add ``record`` (target, branch, commit, files, at) to the run's records."""
    with _guard:
        records = read_applied(run_dir)
        records.append(record)
        atomic_write_json(Path(run_dir) / APPLIED_FILE, {"applied": records})


UNDER_WAY = "underWay"
"""The key that marks a record whose files were being written (see the module)."""


def finish_applied(run_dir: Path, undo: str) -> None:
    """Record that the application kept under ref ``undo`` wrote all its files."""
    _rewrite(run_dir, undo, lambda record: record.pop(UNDER_WAY, None) is not None)


def drop_applied(run_dir: Path, undo: str) -> None:
    """Take back the record of the application kept under ref ``undo``, which wrote
    nothing (its working tree changed meanwhile)."""
    with _guard:
        records = read_applied(run_dir)
        kept = [r for r in records if r.get("undo") != undo or r.get("undone")]
        if len(kept) != len(records):
            atomic_write_json(Path(run_dir) / APPLIED_FILE, {"applied": kept})


def _rewrite(run_dir: Path, undo: str, change: Callable[[dict[str, Any]], bool]) -> None:
    """Apply ``change`` to the record kept under ref ``undo`` not undone yet, and write
    the records again when it says it changed one."""
    with _guard:
        records = read_applied(run_dir)
        found = [change(r) for r in records if r.get("undo") == undo and not r.get("undone")]
        if any(found):
            atomic_write_json(Path(run_dir) / APPLIED_FILE, {"applied": records})


def mark_undone(run_dir: Path, undo: str, at: str) -> None:
    """Record that the application kept under ref ``undo`` was undone ``at``."""
    def undone(record: dict[str, Any]) -> bool:
        record["undone"] = at
        return True

    _rewrite(run_dir, undo, undone)


def utc_stamp() -> str:
    """Now, as the records give their times (``at``, ``undone``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
