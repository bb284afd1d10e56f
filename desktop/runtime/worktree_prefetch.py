"""A run's node worktrees prepared ahead of their nodes' first turns.

A new worktree writes every file of the repository, as a clone's checkout does
(bench/bench_worktree.py). Once a run's first node has its worktree, and so the run's
base commit exists, the worktrees of the run's other nodes are made in the background,
one at a time, directly in their places in the run folder (``worktrees/<node>``), while
the first node's agent works. When a node's turn comes its worktree is there; a node
whose turn comes while its own is being made waits for that one preparation
(:func:`desktop.runtime.worktrees.path_lock`); one whose turn comes before the
preparation reaches it makes its own, as without preparation, and the preparation,
finding it being made, leaves it to the turn.

Made in the run folder, the worktrees are the run's own: another run cannot take them
(it takes only pooled ones), and deleting the run removes them with its other worktrees
(desktop/runtime/worktree_cleanup.py). Each is made by
:func:`desktop.runtime.worktrees.open_tree`, whose adding mark makes one that a stop or
the engine's death cut short be made again by the node's turn.

Then, once a day, the pool is tidied of repositories gone or long unused
(desktop/runtime/worktree_pool_prune.py), and a spare worktree is written into the pool
of each repository the run works in, for the repository's next run
(desktop/runtime/worktree_spare.py).

Stopping (the run stopped or over, the engine closed) kills the git command at work
and waits for the worker thread to return.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from desktop.contract.isolation import Isolation
from desktop.contract.state import NodeConfig, RunState
from desktop.runtime import worktree_pool, worktree_pool_prune, worktree_spare, worktrees
from desktop.runtime.git_run import Stopped, Stopper
from desktop.views.node_folder import workspace_path

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    """One node's worktree to prepare."""

    node_id: str
    key: str | None
    workspace: Path


def jobs(state: RunState, run_dir: Path, workflow_dir: Path | None,
         skip: Iterable[str] = ()) -> list[Job]:
    """The worktrees the run's agent nodes (but ``skip``) will work in, in the order the
    workflow lists them: those of nodes that work in their own worktree of an existing
    folder (see desktop/runtime/isolation.py for the rule)."""
    skipped = set(skip)
    found = []
    for node_id, node in state.nodes.items():
        if node_id in skipped or node.subflow is not None:
            continue
        config = state.node_configs.get(node_id) or NodeConfig()
        asked = config.isolation or state.isolation
        if asked == Isolation.SHARED or (not config.workspace and asked != Isolation.WORKTREE):
            continue
        folder = workspace_path(config.workspace, workflow_dir, run_dir)
        if folder.is_dir():  # one made later is the turn's to make
            found.append(Job(node_id, node.key, folder.resolve()))
    return found


class Prefetch:
    """The background preparation of one run's worktrees: started once, stopped once."""

    def __init__(self, run_dir: Path, run_id: str) -> None:
        self.run_dir = run_dir
        self.run_id = run_id
        self._stopper = Stopper()
        self._task: asyncio.Task[None] | None = None
        self.prepared: list[str] = []
        """The node ids whose worktrees this preparation made or found ready."""

    @property
    def started(self) -> bool:
        return self._task is not None

    def start(self, work: list[Job], spares: Iterable[Path] = ()) -> None:
        """Prepare ``work``'s worktrees in the background, then a spare in the pool of
        each repository the workspaces ``spares`` are in (once per run; later calls and
        calls after :meth:`stop` do nothing)."""
        folders = list(dict.fromkeys(spares))
        if self._task is not None or self._stopper.stopped or not (work or folders):
            return
        self._task = asyncio.create_task(self._prepare(work, folders),
                                         name="worktree-prefetch")

    async def _prepare(self, work: list[Job], spares: list[Path]) -> None:
        await self._prepare_nodes(work)
        pool = worktree_pool.pool_dir(self.run_dir)
        if worktree_pool_prune.due(pool) and not self._stopper.stopped:
            try:
                await asyncio.to_thread(worktree_pool_prune.tidy, pool)
            except Exception as exc:  # only disk is at stake; tried again tomorrow
                log.warning("could not tidy the worktree pool %s: %s", pool, exc)
        for folder in spares:
            if self._stopper.stopped:
                return
            try:
                await asyncio.to_thread(worktree_spare.make, folder, pool, self._stopper)
            except Stopped:
                return
            except Exception as exc:  # only the next run's speed is at stake
                log.warning("could not write a spare worktree for %s: %s", folder, exc)

    async def _prepare_nodes(self, work: list[Job]) -> None:
        for job in work:
            if self._stopper.stopped:
                return
            try:
                tree = await asyncio.to_thread(worktrees.open_tree, job.workspace,
                                               self.run_dir, self.run_id, job.key,
                                               job.node_id, self._stopper)
            except Stopped:
                return
            except Exception as exc:  # the node's turn makes it, and says what went wrong
                log.warning("could not prepare the worktree of node %s: %s", job.node_id, exc)
                continue
            if tree is not None:  # else the node's turn is making it
                self.prepared.append(job.node_id)

    async def wait(self) -> None:
        """Until every worktree is prepared, or the preparation stopped."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    def cancel(self) -> None:
        """Kill the git command at work and start no other (callable from any thread)."""
        self._stopper.stop()

    async def stop(self) -> None:
        """:meth:`cancel`, then wait until the worker thread has returned."""
        self.cancel()
        await self.wait()


__all__ = ["Job", "Prefetch", "jobs"]
