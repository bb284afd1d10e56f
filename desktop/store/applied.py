"""``applied.json`` in a run folder: each time the run's result was taken into the user's
repository (onto their working tree, or as a branch).

Applying happens after the run ended, often from another process than the one that
wrote its log (the CLI while the service holds the run), so it is kept beside the log
rather than appended to it: the log keeps one writer. Each record is written
atomically, the whole list at once; a file that cannot be read counts as no record.
"""

from __future__ import annotations

import threading
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


def mark_undone(run_dir: Path, undo: str, at: str) -> None:
    """Record that the application kept under ref ``undo`` was undone ``at``."""
    with _guard:
        records = read_applied(run_dir)
        found = [r for r in records if r.get("undo") == undo and not r.get("undone")]
        for record in found:
            record["undone"] = at
        if found:
            atomic_write_json(Path(run_dir) / APPLIED_FILE, {"applied": records})


def utc_stamp() -> str:
    """Now, as the records give their times (``at``, ``undone``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
