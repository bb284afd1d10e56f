"""A window's workflow gets its spare worktrees before it is run: a moment after it opens,
or after an edit changes where its nodes work, the window asks the data folder's service
to fill the pool of each repository they would work in (``POST /api/worktree-pool/warm``,
desktop/api/pool_warm.py), so the first Run takes its first node's worktree at once
instead of writing every file of the repository.

The request is an aiohttp call on the window's qasync loop; the data folder's service is
started for it when none runs (as Run would start it), so the first Run waits for
neither. Nothing is asked while the window follows a service on another machine, when no
node has a workspace, when the places the nodes work in are those asked about already,
or when spares are switched off (``AGENT_CANVAS_SPARE_WORKTREE=0``); closing the window
cancels a request under way (the service's git work goes on, and its shutdown ends it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from desktop.api.api_error import ApiError
from desktop.api.discovery import ServiceStartError, ensure_service
from desktop.contract.isolation import spares_wanted
from desktop.graph.io import document_data
from desktop.ui.document import DocumentModel

log = logging.getLogger(__name__)
SETTLE_MS = 1500
"""How long the document stays unchanged before the service is asked."""


class PoolWarmer(QObject):
    """Asks for the spare worktrees of one window's document (see the module)."""

    def __init__(self, model: DocumentModel, workflow_file: Callable[[], Path | None],
                 data_dir: Callable[[], Path | None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._file = workflow_file
        self._data_dir = data_dir
        self._asked: object = None
        self._closed = False
        self.task: asyncio.Task[None] | None = None
        """The request under way (tests wait for it)."""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self.look)
        model.documentReset.connect(self._timer.start)
        model.changed.connect(self._timer.start)

    def _places(self) -> object:
        """Where the nodes work, as far as the service's answer depends on it."""
        doc = self.model.doc
        path = self._file()
        return (str(path) if path else None, doc.workspace, doc.isolation,
                tuple((n.id, doc.workspace_of(n.id), doc.config(n.id).isolation)
                      for n in doc.nodes))

    def look(self) -> None:
        """Ask the service, unless nothing changed where the nodes work since last time."""
        if self._closed:
            return
        if self.task is not None and not self.task.done():
            self._timer.start()  # after the request under way
            return
        places = self._places()
        doc = self.model.doc
        if not any(doc.workspace_of(n.id) for n in doc.nodes):
            return  # every node in the run's scratch folder: nothing to make ahead
        data = self._data_dir()
        if places == self._asked or data is None or not spares_wanted():
            return
        self._asked = places
        path = self._file()
        self.task = asyncio.ensure_future(self._ask(data, document_data(self.model.doc),
                                                    str(path) if path else None))

    async def _ask(self, data: Path, workflow: dict, path: str | None) -> None:
        try:  # started now when none runs: the first Run will not wait for it either
            info = await ensure_service(data)
        except ServiceStartError as exc:
            log.info("no spare worktrees: %s", exc)
            return
        client = info.client(timeout=10)
        try:
            warming = await client.warm_pool(workflow, path)
            log.info("spare worktrees asked for %s", warming.get("repositories"))
        except ApiError as exc:
            log.info("no spare worktrees: %s", exc)
        finally:
            await client.close()

    def stop(self) -> None:
        """The window closes: ask no more, and drop a request under way."""
        self._closed = True
        self._timer.stop()
        if self.task is not None and not self.task.done():
            self.task.cancel()


__all__ = ["SETTLE_MS", "PoolWarmer"]
