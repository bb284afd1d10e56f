"""The service's list of runs, kept up to date instead of re-read on every call.

Each run folder's row (status, names, times, token use) is kept with the fingerprint of
the files it was folded from (the log's size and mtime, the snapshot's mtime). A listing
stats every folder, on a worker thread, and folds again only a run whose files changed;
a run that looks live but is hosted by no engine here is checked for another engine
each time (one may have started or died meanwhile). Listings asked for while one is
being made share it, so a hundred callers at once cost one scan. Runs this service hosts
are taken from their engines' states, which are always current.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from desktop.contract.state import RunState
from desktop.store.jsonl import EVENTS_FILE
from desktop.store.runs import LIVE_STATUSES, RunError, engine_alive
from desktop.store.snapshot import STATE_FILE
from desktop.views.runs import open_run

Fingerprint = tuple[int, int, int]


@dataclass
class _Entry:
    fingerprint: Fingerprint
    row: dict[str, Any] | None
    """None: the folder holds no readable run (skipped, as `runs list` reports it)."""
    live_status: str | None = None
    """The log's status when it looks live (queued, running, paused): shown only while
    some engine holds the run, else the run is interrupted."""


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)


def fingerprint(folder: Path) -> Fingerprint:
    """What changes when the run in ``folder`` does."""
    size, mtime = _stat(folder / EVENTS_FILE)
    return (size, mtime, _stat(folder / STATE_FILE)[1])


def summary_row(state: RunState, live: bool, interrupted: bool) -> dict[str, Any]:
    """The run list's row of ``state``."""
    status = "interrupted" if interrupted and not live else str(state.status)
    row: dict[str, Any] = {
        "id": state.id, "status": status, "workflowName": state.workflow_name,
        "createdAt": state.created_at, "updatedAt": state.updated_at, "live": live,
        "tokens": dict(state.usage)}
    if state.forked_from is not None:
        row["forkedFrom"] = state.forked_from.to_json_dict()
    return row


class RunIndex:
    """The rows of every run folder under ``root``; see the module docstring."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._entries: dict[str, _Entry] = {}
        self._scan: asyncio.Future[list[dict[str, Any]]] | None = None
        self._encoded: tuple[asyncio.Future[list[dict[str, Any]]], bytes] | None = None
        self.folds = 0
        """How many times a run was folded from its files (for tests and benches)."""
        self.scans = 0
        """How many times the folders were stat'ed."""

    async def rows(self, live: dict[str, RunState]) -> list[dict[str, Any]]:
        """Every run's row, newest first; ``live``: the states of the hosted runs."""
        return self._merged(await asyncio.shield(self._start(live)), live)

    async def body(self, live: dict[str, RunState]) -> bytes:
        """``{"runs": rows()}`` as JSON. With no hosted run, the callers that shared a
        scan share its encoding too."""
        scan = self._start(live)
        stored = await asyncio.shield(scan)
        if live:
            return orjson.dumps({"runs": self._merged(stored, live)})
        if self._encoded is None or self._encoded[0] is not scan:
            self._encoded = (scan, orjson.dumps({"runs": self._merged(stored, {})}))
        return self._encoded[1]

    def _start(self, live: dict[str, RunState]) -> asyncio.Future[list[dict[str, Any]]]:
        if self._scan is None or self._scan.done():
            self._scan = asyncio.ensure_future(asyncio.to_thread(self._refresh, set(live)))
        return self._scan

    @staticmethod
    def _merged(stored: list[dict[str, Any]], live: dict[str, RunState]
                ) -> list[dict[str, Any]]:
        rows = [r for r in stored if r["id"] not in live]
        rows += [summary_row(state, True, False) for state in live.values()]
        rows.sort(key=lambda r: (r["createdAt"], r["id"]), reverse=True)
        return rows

    def _refresh(self, hosted: set[str]) -> list[dict[str, Any]]:
        self.scans += 1
        rows: list[dict[str, Any]] = []
        seen: set[str] = set()
        if not self.root.is_dir():
            self._entries.clear()
            return rows
        for folder in self.root.iterdir():
            name = folder.name
            if name.startswith(".") or name in hosted or not folder.is_dir():
                continue
            seen.add(name)
            row = self._row(folder)
            if row is not None:
                rows.append(row)
        for name in set(self._entries) - seen - hosted:
            del self._entries[name]
        return rows

    def _row(self, folder: Path) -> dict[str, Any] | None:
        mark = fingerprint(folder)
        entry = self._entries.get(folder.name)
        if entry is None or entry.fingerprint != mark:
            entry = self._fold(folder, mark)
            self._entries[folder.name] = entry
        if entry.row is None or entry.live_status is None:
            return entry.row
        held = engine_alive(folder)
        return {**entry.row, "status": entry.live_status if held else "interrupted"}

    def _fold(self, folder: Path, mark: Fingerprint) -> _Entry:
        self.folds += 1
        try:
            state = open_run(folder)
        except RunError:
            return _Entry(mark, None)
        status = str(state.status)
        return _Entry(mark, summary_row(state, False, False),
                      status if status in LIVE_STATUSES else None)
