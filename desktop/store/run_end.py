"""Whether a run's log says the run has ended, read from the log's end.

A run ends with ``run.completed``, ``run.failed`` or ``run.stopped`` and stays ended until
a ``run.resumed``. Its snapshot (``state.json``) is written for the last event then; an
event appended after it by another process (an agent's ``bus post``) is one no engine
folds, so the snapshot no longer matches the log. The last event that set the run's
status is found by a byte search from the end, only the lines naming a ``run.`` event
decoded (a message that mentions one is decoded and passed over).
"""

from __future__ import annotations

import mmap
from typing import Any, BinaryIO

import orjson

from desktop.disk.safe_json import loads as safe_loads

ENDED = {"run.completed": "completed", "run.failed": "failed", "run.stopped": "stopped"}
"""The events that end a run, and the status each leaves."""

_SETS_STATUS = frozenset({"run.created", "run.started", "run.resumed", "run.paused",
                          "run.stalled", "run.budget_exceeded", *ENDED})
_NEEDLE = b'"run.'


def _status_of(event: Any) -> tuple[bool, str | None]:
    """(whether ``event`` sets the run's status, the ended status it leaves or None)."""
    if not isinstance(event, dict):
        return False, None
    kind = event.get("type")
    if kind in _SETS_STATUS:
        return True, ENDED.get(kind)
    patch = event.get("patch")
    if kind == "run.patch" and isinstance(patch, dict) and isinstance(patch.get("status"), str):
        status = patch["status"]
        return True, status if status in ENDED.values() else None
    return False, None


def ended_status(fh: BinaryIO, end: int) -> str | None:
    """``completed``, ``failed`` or ``stopped`` when the last event before byte ``end`` of
    the log ``fh`` that set the run's status ended it; None while it is live (or the log
    has no such event)."""
    if end <= 0:
        return None
    with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        pos = min(end, len(data))
        while (hit := data.rfind(_NEEDLE, 0, pos)) >= 0:
            start = data.rfind(b"\n", 0, hit) + 1
            stop = data.find(b"\n", hit, end)
            line = data[start:end if stop < 0 else stop]
            pos = start
            try:
                event = safe_loads(line)
            except (orjson.JSONDecodeError, ValueError):
                continue
            sets, ended = _status_of(event)
            if sets:
                return ended
    return None
