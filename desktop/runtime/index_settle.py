"""A freshly written worktree's index, written again once the clock has moved on, so git
trusts the files' cached stats instead of reading every file again.

git trusts a file's cached stat only when the file is older than the index that holds it.
A file whose modification time is in the same second as the index was written (git
built without nanosecond stamps, as Debian's is) is "racily clean": git reads and hashes
it again in every command that looks at it, until an index is written in a later second.
Every file of a worktree whose files were all just written is such a file, so the next
checkout in it reads them all: taking a spare from the pool cost 0.16 s at the median
instead of 0.036 s on a 10,000-file repository (bench/RESULTS.md).

:func:`settle` waits for the next second, then has ``git update-index --refresh`` check
those files once and write the index again. It is for work done ahead of need (a spare
written while a run works), never on a node's turn: the wait is up to a second.

Blocking: run on a worker thread.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from desktop.runtime.git_run import Stopper, git
from desktop.runtime.worktree_list import linked_git_dir

MARGIN = 0.02
"""Seconds past the second's turn: file times come from the kernel's coarse clock, which
may be a tick behind ``time.time()``."""


def settle(worktree: Path, stop: Stopper | None = None) -> None:
    """Make every clean file in the linked worktree at ``worktree`` older than its index
    (nothing for a folder that is no linked worktree); Stopped when ``stop`` stops it."""
    gitdir = linked_git_dir(worktree)
    if gitdir is None:
        return
    try:
        written = (gitdir / "index").stat().st_mtime
    except OSError:
        return  # no index yet: nothing is cached, so nothing is trusted wrongly
    wait = math.floor(written) + 1 + MARGIN - time.time()
    if wait > 0:
        (stop or Stopper()).pause(wait)
    git(worktree, "update-index", "-q", "--refresh", stop=stop)


__all__ = ["MARGIN", "settle"]
