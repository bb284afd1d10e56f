"""The service's list of runs, kept up to date as runs change instead of re-read per call.

Each run folder's row (status, names, times, token use, event count, result branch) is
kept with the fingerprint of the files it was folded from (the log's size and mtime, the
snapshot's and ``applied.json``'s mtimes), and the
answer's bytes are made once per change and shared by every caller. A call costs one
stat of the runs folder plus a look at the few runs that need one; the rows change when:

- this service's own runs change: a run it hosts is listed from its engine's state,
  always current, and when it stops hosting a run that folder is folded once more;
- a folder is added or removed (the runs folder's mtime moves): the folder names are
  read again, without a stat of the others, and only new folders are folded;
- a run looks live (queued, running, paused) but is not hosted here, or its folder could
  not be read: it is looked at on every call (its fingerprint, and whether some engine
  holds it), as another engine may be writing it, or may have died (then it is listed
  as interrupted);
- anything else another process changes inside a run folder (a finished run resumed by
  ``agent-canvas run``, an edited log): every folder's fingerprint is checked again on a
  worker thread at most every :data:`REVALIDATE_AFTER` seconds while the list is asked
  for; callers do not wait for that check, they get the kept answer meanwhile.

Checks and folds run on a worker thread, one at a time, on a copy of the rows that
replaces them when done; callers that need one share it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from desktop.contract.state import RunState
from desktop.store.applied import APPLIED_FILE
from desktop.store.jsonl import EVENTS_FILE
from desktop.store.runs import LIVE_STATUSES, RunError, engine_alive
from desktop.store.snapshot import STATE_FILE
from desktop.views.result import result_summary
from desktop.views.runs import open_run
from desktop.views.stall_text import stall_detail
from desktop.views.usage import cost, exceeded_text, total_tokens

log = logging.getLogger(__name__)
Fingerprint = tuple[int, int, int, int]
REVALIDATE_AFTER = 2.0
"""Seconds between two checks of every folder (only while the list is asked for)."""


@dataclass
class _Entry:
    fingerprint: Fingerprint
    row: dict[str, Any] | None
    """None: the folder holds no readable run (skipped, as `runs list` reports it)."""
    live_status: str | None = None
    """The log's status when it looks live (queued, running, paused): shown only while
    some engine holds the run, else the run is interrupted."""
    held: bool = False
    """Whether an engine held the run when it was last looked at (live-looking runs)."""

    @property
    def watched(self) -> bool:
        """Looked at on every call (see the module docstring)."""
        return self.row is None or self.live_status is not None

    def shown(self) -> dict[str, Any] | None:
        if self.row is None or self.live_status is None:
            return self.row
        return {**self.row, "status": self.live_status if self.held else "interrupted"}


@dataclass(frozen=True)
class Encoded:
    """One answer of the list: its JSON and its ETag (a hash of it, so it holds across
    restarts of the service).

    Not gzipped: on loopback the bytes cost less than inflating them does (measured with
    bench/bench_run_list.py: 100 aiohttp callers spent 40% more CPU, p99 1.3x).
    """

    body: bytes
    etag: str

    @classmethod
    def of(cls, body: bytes) -> Encoded:
        return cls(body, '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"')


@dataclass
class _Work:
    """What one job on the worker thread does."""

    listing: bool = False
    """Read the folder names again (a folder came or went, or none was read yet)."""
    full: bool = False
    """Check every folder's fingerprint."""
    names: set[str] = field(default_factory=set)
    """Folders to check in any case."""

    def __bool__(self) -> bool:
        return self.listing or self.full or bool(self.names)


@dataclass
class _Result:
    entries: dict[str, _Entry]
    names: frozenset[str]
    root_mark: int | None
    changed: bool


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)


def fingerprint(folder: Path) -> Fingerprint:
    """What changes when the run in ``folder`` does."""
    size, mtime = _stat(folder / EVENTS_FILE)
    return (size, mtime, _stat(folder / STATE_FILE)[1], _stat(folder / APPLIED_FILE)[1])


def summary_row(state: RunState, live: bool, interrupted: bool,
                folder: Path | None = None) -> dict[str, Any]:
    """The run list's row of ``state``; with its ``folder``, its result branch too (a run
    that is still live has none yet worth listing)."""
    status = "interrupted" if interrupted and not live else str(state.status)
    row: dict[str, Any] = {
        "id": state.id, "status": status, "workflowName": state.workflow_name,
        "createdAt": state.created_at, "updatedAt": state.updated_at, "live": live,
        "tokens": dict(state.usage), "totalTokens": total_tokens(state.usage),
        "costUsd": cost(state.usage), "events": state.last_seq}
    if state.forked_from is not None:
        row["forkedFrom"] = state.forked_from.to_json_dict()
    if status in LIVE_STATUSES and (waiting := waiting_on_you(state)):
        row["waiting"] = waiting
    result = result_summary(state, folder) if folder is not None else None
    if result is not None:
        row["result"] = {"nodeId": result.node_id, "node": result.node,
                         "branch": result.branch, "repo": result.repo,
                         "applied": list(result.applied)}
    return row


def waiting_on_you(state: RunState) -> list[dict[str, Any]]:
    """What in a live run waits on a person besides its approvals: the stall or the budget
    that paused it, and each node whose last turn failed (each with its node and the reason)."""
    out = []
    stall = state.stall or {}
    if str(state.status) == "paused" and stall:
        node = state.nodes.get(str(stall.get("nodeId") or ""))
        out.append({"kind": "stall", "nodeId": node.id if node else None,
                    "node": node.label if node else "", "reason": stall_detail(stall)})
    found = state.budget_exceeded or {}
    if str(state.status) == "paused" and found:
        node = state.nodes.get(str(found.get("nodeId") or ""))
        out.append({"kind": "budget", "nodeId": node.id if node else None,
                    "node": node.label if node else "",
                    "reason": exceeded_text(found, node.label if node else "the run")})
    for node in state.nodes.values():
        if str(node.status) == "failed":
            out.append({"kind": "failed", "nodeId": node.id, "node": node.label,
                        "reason": node.summary})
    return out


def _root_mark(root: Path) -> int | None:
    try:
        return os.stat(root).st_mtime_ns
    except OSError:
        return None


class RunIndex:
    """The rows of every run folder under ``root``; see the module docstring."""

    def __init__(self, root: Path, revalidate_after: float = REVALIDATE_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.root = Path(root)
        self.revalidate_after = revalidate_after
        self.clock = clock
        self._entries: dict[str, _Entry] = {}
        self._names: frozenset[str] = frozenset()
        """Folder names at the last reading of them, hosted runs' included."""
        self._root_mark: int | None = None
        self._listed = False
        self._watched: tuple[str, ...] = ()
        self._hosted: frozenset[str] = frozenset()
        self._stale: set[str] = set()
        """Folders to fold again at the next job (runs this service stopped hosting)."""
        self._checked_at = -math.inf
        self._job: asyncio.Task[None] | None = None
        self._version = 0
        self._encoded: tuple[tuple[Any, ...], Encoded] | None = None
        self.folds = 0
        """How many times a run was folded from its files (for tests and benches)."""
        self.scans = 0
        """How many times every folder's fingerprint was checked."""

    # --- answers -------------------------------------------------------------------------

    async def rows(self, live: dict[str, RunState]) -> list[dict[str, Any]]:
        """Every run's row, newest first; ``live``: the states of the hosted runs."""
        await self._current(live)
        return self._merged(live)

    async def encoded(self, live: dict[str, RunState]) -> Encoded:
        """``{"runs": rows()}`` as JSON, made once per change of any row."""
        await self._current(live)
        key = (self._version, *sorted((run_id, state.last_seq, str(state.status))
                                      for run_id, state in live.items()))
        if self._encoded is None or self._encoded[0] != key:
            self._encoded = (key, Encoded.of(orjson.dumps({"runs": self._merged(live)})))
        return self._encoded[1]

    async def body(self, live: dict[str, RunState]) -> bytes:
        return (await self.encoded(live)).body

    def touched(self, run_id: str) -> None:
        """This service changed ``run_id``'s folder (applied its result): fold it again
        at the next call, not at the next check of every folder."""
        self._stale.add(run_id)

    async def revalidate(self) -> None:
        """Check every folder now and wait for it (the periodic check, made at once)."""
        await self._settle()
        await self._start(_Work(listing=True, full=True))

    async def close(self) -> None:
        """Wait for a check still running (it ends soon: one pass over the folders), so no
        task is left for the loop's end to destroy."""
        await self._settle()

    def _merged(self, live: dict[str, RunState]) -> list[dict[str, Any]]:
        rows = [row for name, entry in self._entries.items()
                if name not in live and (row := entry.shown()) is not None]
        rows += [summary_row(state, True, False) for state in live.values()]
        rows.sort(key=lambda r: (r["createdAt"], r["id"]), reverse=True)
        return rows

    # --- keeping the rows current --------------------------------------------------------

    async def _current(self, live: dict[str, RunState]) -> None:
        hosted = frozenset(live)
        if hosted != self._hosted:
            self._stale |= self._hosted - hosted  # no longer hosted: fold from its files
            self._hosted = hosted
        for _ in range(3):  # a folder that keeps changing must not hold a caller forever
            await self._settle()
            work = self._needed()
            if not work:
                break
            await self._start(work)
        if self.clock() - self._checked_at >= self.revalidate_after and self._idle():
            self._checked_at = self.clock()
            self._background(_Work(listing=True, full=True))

    def _needed(self) -> _Work:
        """What must be looked at before answering; on the loop, so only cheap checks."""
        work = _Work(names=set(self._stale))
        if not self._listed or _root_mark(self.root) != self._root_mark:
            work.listing = True
        for name in self._watched:
            entry = self._entries.get(name)
            if entry is None or name in self._hosted:
                continue
            folder = self.root / name
            if fingerprint(folder) != entry.fingerprint or (
                    entry.live_status is not None and engine_alive(folder) != entry.held):
                work.names.add(name)
        return work

    def _idle(self) -> bool:
        return self._job is None or self._job.done()

    async def _settle(self) -> None:
        while not self._idle():
            assert self._job is not None
            with contextlib.suppress(Exception):
                await asyncio.shield(self._job)

    async def _start(self, work: _Work) -> None:
        if not self._idle():
            await self._settle()
        self._background(work)
        assert self._job is not None
        await asyncio.shield(self._job)

    def _background(self, work: _Work) -> None:
        self._stale -= work.names
        if work.full or not self._listed:  # the first listing folds every folder
            self._checked_at = self.clock()
        self._job = asyncio.ensure_future(self._run(work, self._hosted))
        self._job.add_done_callback(_retrieve)

    async def _run(self, work: _Work, hosted: frozenset[str]) -> None:
        result = await asyncio.to_thread(self._refresh, work, hosted, dict(self._entries),
                                         self._names)
        self._entries = result.entries
        self._names = result.names
        self._root_mark = result.root_mark
        self._listed = True
        self._watched = tuple(name for name, entry in result.entries.items()
                              if entry.watched)
        if result.changed:
            self._version += 1

    def _refresh(self, work: _Work, hosted: frozenset[str], entries: dict[str, _Entry],
                 names: frozenset[str]) -> _Result:
        """On the worker thread: ``entries`` (a copy) brought up to date as ``work`` says."""
        changed = False
        check = set(work.names)
        mark = self._root_mark
        if work.listing or work.full:
            mark = _root_mark(self.root)  # before the names: a later change is seen next time
            present = frozenset(self._folders())
            for gone in set(entries) - present:
                del entries[gone]
                changed = True
            check |= (present if work.full else present - names) | (present - set(entries))
            names = present
        if work.full:
            self.scans += 1
        for name in check - hosted:
            if name not in names:
                changed |= entries.pop(name, None) is not None
                continue
            changed |= self._update(entries, name)
        return _Result(entries, names, mark, changed)

    def _folders(self) -> list[str]:
        try:
            with os.scandir(self.root) as it:
                # DirEntry.is_dir uses the type the listing gives: no stat per folder
                return [e.name for e in it if not e.name.startswith(".") and e.is_dir()]
        except OSError:
            return []

    def _update(self, entries: dict[str, _Entry], name: str) -> bool:
        """Fold ``name`` again if its files changed, and look at its engine if it looks
        live; whether its row changed."""
        folder = self.root / name
        mark = fingerprint(folder)
        entry = entries.get(name)
        changed = False
        if entry is None or entry.fingerprint != mark:
            entry = entries[name] = self._fold(folder, mark)
            changed = True
        if entry.live_status is not None:
            held = engine_alive(folder)
            if held != entry.held:  # a new entry: the loop may be reading the old one
                entries[name] = replace(entry, held=held)
                changed = True
        return changed

    def _fold(self, folder: Path, mark: Fingerprint) -> _Entry:
        self.folds += 1
        try:
            state = open_run(folder)
        except RunError:
            return _Entry(mark, None)
        status = str(state.status)
        return _Entry(mark, summary_row(state, False, False, folder),
                      status if status in LIVE_STATUSES else None)


def _retrieve(job: asyncio.Future[None]) -> None:
    """A failed background check is logged (the next call tries again), never left
    unretrieved."""
    if not job.cancelled() and (exc := job.exception()) is not None:
        log.error("checking the run folders failed: %s", exc)
