"""``state.json`` of a live run, written on a worker thread.

The engine snapshots the folded state every few thousand events so reopening a
run folds only the tail. Writing it (encode, write, two fsyncs) on the event loop
would stall every streaming agent for that long, so the state is copied as bytes
on the loop (a fraction of a millisecond) and written by one worker thread, in
order. :meth:`SnapshotWriter.write_now` waits for that thread first, so an older
snapshot never replaces a newer one.
"""

from __future__ import annotations

import contextlib
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson

from desktop.store.snapshot import write_snapshot

log = logging.getLogger(__name__)


def _write(run_dir: Path, data: bytes) -> None:
    write_snapshot(run_dir, orjson.loads(data))


class SnapshotWriter:
    """Background and synchronous writes of one run's ``state.json``."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self._pool: ThreadPoolExecutor | None = None
        self._job: Future[None] | None = None

    def write_soon(self, state: dict[str, Any]) -> None:
        """Snapshot ``state`` as it is now, written off the calling thread.

        Skipped while the previous one is still being written: the next is newer anyway.
        """
        if self._job is not None and not self._job.done():
            return
        data = orjson.dumps(state)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="snapshot")
        self._job = self._pool.submit(_write, self.run_dir, data)
        self._job.add_done_callback(_report)

    def write_now(self, state: dict[str, Any]) -> None:
        """Snapshot ``state`` before returning (after any write still in progress)."""
        self.wait()
        write_snapshot(self.run_dir, state)

    def wait(self) -> None:
        if self._job is not None:
            with contextlib.suppress(Exception):  # reported by _report
                self._job.result()
            self._job = None

    def close(self) -> None:
        self.wait()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def _report(job: Future[None]) -> None:
    exc = job.exception()
    if exc is not None:  # a lost snapshot only makes reopening fold more of the log
        log.warning("state.json snapshot failed: %s", exc)
