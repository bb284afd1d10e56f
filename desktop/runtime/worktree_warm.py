"""Spare worktrees made before any run: while a workflow is open in the app, each
repository its nodes would work in gets its spare in the pool
(desktop/runtime/worktree_spare.py), so its first run takes the first node's worktree
from the pool instead of writing every file while the user waits (bench/RESULTS.md:
"first node's worktree, taken from the pool" against "none pooled").

Only a node with a worktree of its own counts: a workspace in a git repository, its
isolation not ``shared``. A relative workspace needs the workflow's folder (an unsaved
workflow's are left out). Subflows' nodes are not looked at: their files are read when a
run starts. Blocking: run :func:`warm` on a worker thread.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from desktop.contract.isolation import Isolation
from desktop.graph.document import WorkflowDocument
from desktop.graph.isolation_check import in_git_repository
from desktop.runtime import worktree_pool, worktree_spare
from desktop.runtime.git_run import GitError, Stopped, Stopper

log = logging.getLogger(__name__)


def repositories(doc: WorkflowDocument, workflow_dir: Path | None) -> list[Path]:
    """The folders (one per folder, resolved) the nodes of ``doc`` would get worktrees
    of; ``workflow_dir``: where relative workspaces start (None: the workflow has no file)."""
    found: dict[Path, None] = {}
    for node in doc.nodes:
        workspace = doc.workspace_of(node.id)
        shared = doc.isolation_of(node.id) == Isolation.SHARED.value
        if node.kind == "subflow" or not workspace or shared:
            continue
        folder = Path(workspace).expanduser()
        if not folder.is_absolute():
            if workflow_dir is None:
                continue
            folder = workflow_dir / folder
        if folder.is_dir() and in_git_repository(folder):
            found.setdefault(folder.resolve(), None)
    return list(found)


def warm(folders: Iterable[Path], data_dir: Path, stop: Stopper | None = None) -> list[Path]:
    """Make the spare of each folder's repository in ``data_dir``'s pool (none where one
    waits already or is being made); the spares made. A repository git cannot use is
    passed over, as the run would say why; ``stop`` ends it all at once."""
    pool = data_dir / worktree_pool.POOL
    made: list[Path] = []
    for folder in folders:
        try:
            spare = worktree_spare.make(folder, pool, stop)
        except Stopped:
            break
        except (GitError, OSError) as exc:
            log.info("no spare worktree for %s: %s", folder, exc)
            continue
        if spare is not None:
            made.append(spare)
    return made


__all__ = ["repositories", "warm"]
