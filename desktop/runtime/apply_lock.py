"""One application of a run's result at a time, across processes.

``agent-canvas runs apply`` in a terminal and the service's ``POST .../apply`` (the
app's Apply buttons) can take the same run at once. Each merges against the user's
state as it found it, then writes their working tree (or a branch) and the run's
``applied.json``: interleaved, the second works from a state the first is changing.
The service's in-process run lock cannot see a terminal, so the lock is an advisory
lock (``flock``) on ``apply.lock`` in the run folder, taken by
desktop/runtime/result_apply.py itself, whoever calls it. It is taken without waiting:
a second application is refused at once (:class:`ApplyBusy`) rather than queued
behind one the user may not know is running. The OS drops it if the process dies;
closing the descriptor on the way out releases it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from desktop.runtime.run_result import ResultError
from desktop.store.runs import try_lock
from desktop.store.safe_open import RunFileError, open_fd

APPLY_LOCK = "apply.lock"


class ApplyBusy(ResultError):
    """Another application of the run's result is under way; nothing was changed."""


class ApplyLockUnusable(ResultError):
    """The run folder's apply lock cannot be opened (a link put there, no permission):
    the run folder's fault, not the request's; nothing was changed."""


@contextlib.contextmanager
def hold_apply_lock(run_dir: Path) -> Iterator[None]:
    """Hold run folder ``run_dir``'s apply lock while the block runs; ApplyBusy at once
    when another process (or another call in this one) holds it."""
    path = Path(run_dir) / APPLY_LOCK
    try:
        fd = open_fd(path, os.O_RDWR | os.O_CREAT)
    except RunFileError as exc:  # a link put there: says so, and what to do
        raise ApplyLockUnusable(exc.strerror or str(exc)) from None
    except OSError as exc:
        raise ApplyLockUnusable(f"{path}: cannot open the run's apply lock "
                          f"({exc.strerror or exc}); check the run folder's permissions") from None
    try:
        if not try_lock(fd, exclusive=True):
            raise ApplyBusy(f"another apply of run {Path(run_dir).name[:8]} is under way (in "
                            "the app, a service or a terminal): let that one finish, then "
                            "apply again")
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


__all__ = ["APPLY_LOCK", "ApplyBusy", "ApplyLockUnusable", "hold_apply_lock"]
