"""The service's run list, kept current for Run history while it is on screen.

``GET /api/runs`` with the ETag of the list last taken: an unchanged list is a 304 with
no body, so asking every few seconds (as :class:`ServicePoll` does) costs next to
nothing, and the history learns of a new run, a status or a result applied at once,
whoever made the change (this window, another one, the CLI, curl). With no service
running, nothing is live and the feed says so with ``None``: the history reads the runs
folder itself.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desktop.ui.run.service_poll import POLL_MS, ServicePoll

if TYPE_CHECKING:
    from desktop.api.client import ApiClient

NO_SERVICE: list[dict[str, Any]] = []
"""What :meth:`RunListFeed._ask` answers when no service runs (told apart by identity)."""


class RunListFeed(ServicePoll):
    """``changed(rows)``: the service's run rows (the API's, newest first), or None when no
    service runs."""

    changed = Signal(object)

    def __init__(self, data_dir: Callable[[], Path], watched: QWidget,
                 parent: QObject | None = None, interval_ms: int = POLL_MS) -> None:
        super().__init__(data_dir, watched, parent, interval_ms)
        self.etag: str | None = None
        self.rows: list[dict[str, Any]] | None = None
        """The list last taken (None: no service was running then)."""

    async def _ask(self) -> list[dict[str, Any]] | None:
        return await self._asking_service(self._runs, NO_SERVICE)

    async def _runs(self, client: ApiClient) -> list[dict[str, Any]] | None:
        rows, self.etag = await client.list_runs_since(self.etag)
        return rows

    def _took(self, rows: list[dict[str, Any]]) -> None:
        if rows is NO_SERVICE:
            if self.rows is not None or self.etag is not None:
                self.rows, self.etag = None, None
                self.changed.emit(None)
            return
        self.rows = rows
        self.changed.emit(rows)
