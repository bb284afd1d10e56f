"""Deleting a run: its git traces (desktop/runtime/worktree_cleanup.py), then its folder.

The one way a run is deleted: the service's ``DELETE /api/runs/RUN`` and ``agent-canvas
runs delete`` both end here. The run's engine lock is held while its worktrees are
pooled or removed, so an engine that takes the run over meanwhile (a resume in another
process) makes this fail with :class:`EngineBusy` before anything of it is touched; the
lock is let go before the folder goes, as a file held open cannot be deleted everywhere.

Blocking: run it on a worker thread.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.runtime.worktree_cleanup import Cleanup, remove_run_worktrees
from desktop.store.runs import hold_engine_lock


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
                "kept": list(self.cleanup.kept)}


def delete_run_folder(folder: Path, run_id: str,
                      state: Mapping[str, Any] | None = None) -> RunDeleted:
    """Pool or remove run ``run_id``'s worktrees, delete its branches and base ref, then
    its folder ``folder`` (``state``: its folded state, whose nodes name the repositories;
    None when unreadable). Raises EngineBusy (desktop/store/runs.py) when an engine holds
    the run."""
    with hold_engine_lock(folder):
        cleanup = remove_run_worktrees(folder, run_id, state)
    shutil.rmtree(folder)
    return RunDeleted(run_id, Path(folder), cleanup)


__all__ = ["RunDeleted", "delete_run_folder"]
