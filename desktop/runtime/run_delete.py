"""Deleting a run: its git traces (desktop/runtime/worktree_cleanup.py), then its folder.

The one way a run is deleted: the service's ``DELETE /api/runs/RUN`` and ``agent-canvas
runs delete`` both end here. The run's engine lock is held while its worktrees are
pooled or removed, so an engine that takes the run over meanwhile (a resume in another
process) makes this fail with :class:`EngineBusy` before anything of it is touched; the
lock is let go before the folder goes, as a file held open cannot be deleted everywhere.

Work in the run's worktrees made after it ended (an edit, a commit on a node's branch:
desktop/runtime/unsaved_work.py) is refused the same way, with :class:`WorkNotSaved`.

A worktree of the run that the user locked (``git worktree lock``) is them saying "keep
this". Its folder is inside the run folder, so the run cannot go without it: such a run
is refused with :class:`WorktreesLocked`, naming each locked worktree and how to unlock
it, and nothing of it is touched. (Should one be locked between that look and the
cleanup, it is left alone with its branch, the rest of the run's worktrees and refs go,
and the folder stays: the same refusal says so.)

Blocking: run it on a worker thread.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.runtime.run_result import ResultError, find_place
from desktop.runtime.unsaved_work import WorkNotSaved, refuse_if_unsaved
from desktop.runtime.worktree_cleanup import (
    Cleanup,
    LockedWorktree,
    locked_worktrees,
    remove_run_worktrees,
)
from desktop.store.applied import read_applied
from desktop.store.runs import RunError, hold_engine_lock
from desktop.views.result import undoable

RMTREE_TRIES = 5
"""Times removing a deleted run's folder is tried before what is left is left."""


class WorktreesLocked(RunError):
    """The run has worktrees the user locked; the message names them and how to go on."""

    def __init__(self, run_id: str, locked: list[LockedWorktree], *, partly: bool = False) -> None:
        self.locked = locked
        done = ("its other worktrees and branches were removed, its folder was kept"
                if partly else "nothing was changed")
        trees = "; ".join(t.describe() for t in locked)
        super().__init__(f"run {run_id[:8]} not deleted, {done}: {trees}, then delete "
                         "the run again")


@dataclass(frozen=True)
class RunDeleted:
    """What deleting run ``run_id`` took away."""

    run_id: str
    folder: Path
    cleanup: Cleanup

    def to_json(self) -> dict[str, Any]:
        """The body of the service's answer (``RunDeletedOut``): ``removed`` lists the
        worktrees removed outright, ``pooled`` the ones kept for the next run."""
        pooled = set(self.cleanup.pooled)
        return {"runId": self.run_id, "folder": str(self.folder),
                "pooled": [str(p) for p in self.cleanup.pooled],
                "removed": [str(p) for p in self.cleanup.removed if p not in pooled],
                "refsDeleted": list(self.cleanup.deleted),
                "kept": list(self.cleanup.kept),
                "undoLost": [lost.to_json() for lost in self.cleanup.undo_lost]}


def refuse_if_locked(folder: Path, run_id: str,
                     state: Mapping[str, Any] | None = None) -> None:
    """Raise WorktreesLocked when the user locked a worktree of run ``run_id``."""
    locked = locked_worktrees(folder, state)
    if locked:
        raise WorktreesLocked(run_id, locked)


def delete_run_folder(folder: Path, run_id: str,
                      state: Mapping[str, Any] | None = None) -> RunDeleted:
    """Pool or remove run ``run_id``'s worktrees, delete its branches and base ref, then
    its folder ``folder`` (``state``: its folded state, whose nodes name the repositories;
    None when unreadable). Raises EngineBusy (desktop/store/runs.py) when an engine holds
    the run, WorktreesLocked when the user locked one of its worktrees, WorkNotSaved when
    its worktrees hold work made after it ended."""
    with hold_engine_lock(folder):
        refuse_if_locked(folder, run_id, state)
        refuse_if_unsaved(folder, run_id, state)
        cleanup = remove_run_worktrees(folder, run_id, state, _applied_in(folder))
    if cleanup.locked:  # locked since the look above: the run folder holds it
        raise WorktreesLocked(run_id, cleanup.locked, partly=True)
    remove_folder(Path(folder))
    return RunDeleted(run_id, Path(folder), cleanup)


def _applied_in(folder: Path) -> Path | None:
    """Where an apply of the run's result that can still be undone went: the folder
    ``runs apply --undo`` would undo it in; None when there is none."""
    if undoable(read_applied(folder)) is None:
        return None
    try:
        return find_place(folder).repo
    except (ResultError, RunError, OSError):
        return None


def remove_folder(folder: Path) -> None:
    """Remove a run folder: first renamed out of the runs' names (``.deleting-...``), so
    the run is gone at once for every reader, then removed. A reader that was still
    writing a cache of the run's (its event index) as the removal went can leave a file
    behind the listing; the removal is tried again then, and what stays is a hidden
    folder no listing shows."""
    doomed = folder.with_name(f".deleting-{folder.name}-{uuid.uuid4().hex[:8]}")
    os.rename(folder, doomed)
    for _attempt in range(RMTREE_TRIES - 1):
        try:
            shutil.rmtree(doomed)
            return
        except OSError:  # ENOTEMPTY: a late writer's file appeared in the middle
            time.sleep(0.05)
    shutil.rmtree(doomed, ignore_errors=True)


__all__ = ["RunDeleted", "WorkNotSaved", "WorktreesLocked", "delete_run_folder",
           "refuse_if_locked"]
