"""The copies of an agent's output in its run folder, written on a worker thread.

An agent's stdout and stderr are copied to files as they stream. A ``write()``
can stall for milliseconds while the disk is busy with the event log's fsyncs,
and on the event loop that stall holds up every other agent, so one worker
thread does the writing for all agents, in the order the chunks arrived.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

log = logging.getLogger(__name__)
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _writer() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(1, thread_name_prefix="agent-output")
        return _pool


class FileTee:
    """Append-only copy of one stream; ``write`` returns at once, ``close`` when done."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh = open(path, "ab")  # noqa: SIM115 - closed by close()
        self.error: OSError | None = None

    def write(self, data: bytes) -> None:
        _writer().submit(self._write, data)

    def flush(self) -> None:
        _writer().submit(self._flush)

    def close(self) -> Future[None]:
        """Close once every write before it is done; the future says when."""
        return _writer().submit(self._close)

    def _write(self, data: bytes) -> None:
        if self.error is not None:
            return
        try:
            self._fh.write(data)
        except OSError as exc:  # the events still carry the output; keep the run going
            self.error = exc
            log.warning("cannot write %s: %s", self.path, exc)

    def _flush(self) -> None:
        if self.error is None:
            try:
                self._fh.flush()
            except OSError as exc:
                self.error = exc

    def _close(self) -> None:
        try:
            self._fh.close()
        except OSError as exc:
            self.error = self.error or exc
