"""A freshly written worktree's index, made one git trusts, so later commands do not read
every file again.

git trusts a file's cached stat only when the file is older than the index that holds it.
A file whose modification time is in the same second as the index was written (git
built without nanosecond stamps, as Debian's is) is "racily clean": git reads and hashes
it again in every command that looks at it, until an index is written in a later second.
Every file of a worktree whose files were all just written is such a file, so the next
command in it reads them all: taking a spare from the pool cost 0.16 s at the median
instead of 0.04 s on a 10,000-file repository, and a node's first commit 0.2 to 0.8 s
instead of 0.04 s (bench/RESULTS.md).

:func:`settle` dates those files a second before the index and has ``git update-index
--refresh`` read them once and write the index again. It is for work done ahead of need
(a spare written while a run works, a node's worktree prepared before its turn), where
no one else is using the worktree yet; on a node's turn it would only move the same
reading earlier.

Blocking: run on a worker thread.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from desktop.runtime.git_run import Stopper, git
from desktop.runtime.worktree_list import linked_git_dir


def settle(worktree: Path, stop: Stopper | None = None) -> None:
    """Make every file of the linked worktree at ``worktree`` older than its index and
    refresh the index (nothing is done for a folder that is no linked worktree). Stopped
    when ``stop`` stops it."""
    gitdir = linked_git_dir(worktree)
    if gitdir is None:
        return
    try:
        written = int((gitdir / "index").stat().st_mtime)
    except OSError:
        return  # no index yet: nothing is cached, so nothing is trusted wrongly
    listed = git(worktree, "ls-files", "-z", stop=stop, here_only=True)
    if not listed.ok:
        return
    before = written - 1  # a whole second before the index: git's stamps are in seconds
    redated = False
    for name in filter(None, listed.out.split(b"\0")):
        path = worktree / os.fsdecode(name)
        with contextlib.suppress(OSError):  # not checked out (a sparse checkout's)
            if int(path.lstat().st_mtime) >= written:
                os.utime(path, (before, before), follow_symlinks=False)
                redated = True
    if redated:
        git(worktree, "update-index", "-q", "--refresh", stop=stop, here_only=True)


__all__ = ["settle"]
