"""The service's list of runs, kept up to date as runs change instead of re-read per call.

The rows are the one run list's (desktop/views/run_list.py, the same code the CLI lists
with), each kept with the fingerprint of the files it was folded from (the log's size and
mtime, the snapshot's and ``applied.json``'s mtimes); this module says when they are
looked at again, and the answer's bytes are made once per change and shared by every
caller. A call costs one stat of the runs folder plus a look at the few runs that need
one; the rows change when:

- this service's own runs change: a run it hosts is listed from its engine's state,
  always current, and when it stops hosting a run that folder is folded once more;
- a folder is added or removed (the runs folder's mtime moves): the folder names are
  read again, without a stat of the others, and only new folders are folded;
- a run looks live (queued, running, paused) but is not hosted here, or its folder could
  not be read (it is listed as unreadable): it is looked at on every call (its
  fingerprint, and whether some engine holds it), as another engine may be writing it,
  or may have died (then it is listed as interrupted);
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
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from desktop.contract.state import RunState
from desktop.store.runs import engine_alive
from desktop.views.run_list import (
    Folders,
    RunFolders,
    Work,
    fingerprint,
    newest_first,
    root_mark,
    summary_row,
)

log = logging.getLogger(__name__)
REVALIDATE_AFTER = 2.0
"""Seconds between two checks of every folder (only while the list is asked for)."""


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


class RunIndex:
    """The rows of every run folder under ``root``; see the module docstring."""

    def __init__(self, root: Path, revalidate_after: float = REVALIDATE_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.root = Path(root)
        self.revalidate_after = revalidate_after
        self.clock = clock
        self.folders = RunFolders(self.root)
        self._seen = Folders()
        self._listed = False
        self._watched: tuple[str, ...] = ()
        self._hosted: frozenset[str] = frozenset()
        self._stale: set[str] = set()
        """Folders to fold again at the next job (runs this service stopped hosting)."""
        self._checked_at = -math.inf
        self._job: asyncio.Task[None] | None = None
        self._version = 0
        self._encoded: tuple[tuple[Any, ...], Encoded] | None = None

    @property
    def folds(self) -> int:
        """How many times a run was folded from its files (for tests and benches)."""
        return self.folders.folds

    @property
    def scans(self) -> int:
        """How many times every folder's fingerprint was checked."""
        return self.folders.scans

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
        await self._start(Work(listing=True, full=True))

    async def close(self) -> None:
        """Wait for a check still running (it ends soon: one pass over the folders), so no
        task is left for the loop's end to destroy."""
        await self._settle()

    def _merged(self, live: dict[str, RunState]) -> list[dict[str, Any]]:
        rows = self._seen.rows(skip=frozenset(live))
        rows += [summary_row(state, True) for state in live.values()]
        return newest_first(rows)

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
            self._background(Work(listing=True, full=True))

    def _needed(self) -> Work:
        """What must be looked at before answering; on the loop, so only cheap checks."""
        work = Work(names=set(self._stale))
        if not self._listed or root_mark(self.root) != self._seen.root_mark:
            work.listing = True
        for name in self._watched:
            entry = self._seen.entries.get(name)
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

    async def _start(self, work: Work) -> None:
        if not self._idle():
            await self._settle()
        self._background(work)
        assert self._job is not None
        await asyncio.shield(self._job)

    def _background(self, work: Work) -> None:
        self._stale -= work.names
        if work.full or not self._listed:  # the first listing folds every folder
            self._checked_at = self.clock()
        self._job = asyncio.ensure_future(self._run(work, self._hosted))
        self._job.add_done_callback(_retrieve)

    async def _run(self, work: Work, hosted: frozenset[str]) -> None:
        # the look works on a copy of the rows, which replaces them when it is done
        seen = await asyncio.to_thread(self.folders.look, work, self._seen, hosted)
        self._seen = seen
        self._listed = True
        self._watched = tuple(name for name, entry in seen.entries.items() if entry.watched)
        if seen.changed:
            self._version += 1


def _retrieve(job: asyncio.Future[None]) -> None:
    """A failed background check is logged (the next call tries again), never left
    unretrieved."""
    if not job.cancelled() and (exc := job.exception()) is not None:
        log.error("checking the run folders failed: %s", exc)
