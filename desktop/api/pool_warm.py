"""``POST /api/worktree-pool/warm``: spare worktrees made ahead of a workflow's first run.

The app asks as it opens a workflow (desktop/ui/pool_warmer.py): each repository the
workflow's nodes would get worktrees of gets its spare in the data folder's pool
(desktop/runtime/worktree_warm.py), so the first Run takes its first node's worktree at
once. The answer (202) names the repositories and comes at once; the git work goes on in
a worker thread, and the service's shutdown kills it. Spares switched off
(``AGENT_CANVAS_SPARE_WORKTREE=0``) name none and make none.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from desktop.api.api_error import ApiError
from desktop.api.body_json import workflow_document
from desktop.api.paths import recorded_path
from desktop.contract.api import PoolWarming, WarmPool
from desktop.runtime.git_run import Stopper

log = logging.getLogger(__name__)


class PoolWarmer:
    """The service's warming of its data folder's worktree pool."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._stop = Stopper()
        self._tasks: set[asyncio.Task[list[Path]]] = set()

    async def warm(self, request: WarmPool) -> PoolWarming:
        """Start making the spares of the repositories ``request``'s workflow works in."""
        from desktop.runtime import worktree_spare
        from desktop.runtime.worktree_warm import repositories, warm

        if self._stop.stopped:
            raise ApiError(503, "service_closing", "the service is stopping")
        doc = workflow_document(request.workflow)
        home = recorded_path(request.workflow_path) if request.workflow_path else None
        if not worktree_spare.wanted():  # switched off: a repository too large for one more
            return PoolWarming(repositories=[])
        folders = await asyncio.to_thread(repositories, doc,
                                          Path(home).parent if home else None)
        if folders:
            task = asyncio.ensure_future(asyncio.to_thread(warm, folders, self.data_dir,
                                                           self._stop))
            self._tasks.add(task)
            task.add_done_callback(self._done)
        return PoolWarming(repositories=[str(f) for f in folders])

    def _done(self, task: asyncio.Task[list[Path]]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("spare worktrees not made: %s", task.exception())

    async def wait(self) -> None:
        """Until the spares asked for so far are made (tests)."""
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self) -> None:
        """Kill the git at work and wait for its thread."""
        self._stop.stop()
        await self.wait()


__all__ = ["PoolWarmer"]
