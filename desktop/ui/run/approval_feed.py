"""Every approval the service waits on, across all its live runs, kept current for a window.

The service has no service-wide event feed, only ``GET /api/approvals`` (every pending
approval of every live run, each with its ``runId``). So the feed asks it every few
seconds while its window is on screen, and at once when the window comes forward or a
decision was sent. The request is an aiohttp call on the GUI thread's asyncio loop
(qasync): it never blocks the window and no worker thread is involved. A run the feed
has not met yet is asked for once (``GET /api/runs/{id}``) for its name and node labels.

No service running means no live run, so nothing waits: the feed never starts one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

from desktop.api.client import ApiClient, ApiError
from desktop.api.discovery import find_service

log = logging.getLogger(__name__)
POLL_MS = 2000
ASK_TIMEOUT = 5.0


class RunInfo:
    """What the inbox says about a run it did not open: its name and its node labels."""

    def __init__(self, name: str = "", labels: dict[str, str] | None = None) -> None:
        self.name = name
        self.labels = labels or {}


class ApprovalFeed(QObject):
    """The service's pending approvals (``items``: approval id -> request with ``runId``)."""

    changed = Signal()

    def __init__(self, data_dir: Callable[[], Path], window: QWidget,
                 parent: QObject | None = None, interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self._data_dir = data_dir  # a callable: the window may point at another folder later
        self._window = window
        window.installEventFilter(self)  # asks at once when the window (or tab) shows
        self.items: dict[str, dict[str, Any]] = {}
        self.runs: dict[str, RunInfo] = {}
        self._asking: asyncio.Task | None = None
        self._tasks: set[asyncio.Future] = set()
        self._again = False  # a refresh was asked for while one was under way
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    # --- polling ----------------------------------------------------------------------------

    def _tick(self) -> None:
        if self._window.isVisible():  # a hidden tab leaves the asking to the tab in front
            self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show:
            self.refresh()
        return False

    def refresh(self) -> None:
        """Ask the service now (once more after the request under way, if there is one)."""
        if not isValid(self) or not self._timer.isActive():
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no asyncio loop runs Qt's events (a bare QApplication)
            return
        if self._asking is not None and not self._asking.done():
            self._again = True
            return
        self._again = False
        self._asking = asyncio.ensure_future(self._ask())
        self._asking.add_done_callback(self._asked)

    async def _ask(self) -> dict[str, dict[str, Any]] | None:
        info = find_service(self._data_dir())
        if info is None:
            return {}
        client = info.client(timeout=ASK_TIMEOUT)
        try:
            items = {str(a["approvalId"]): a for a in await client.approvals()}
            for run_id in {str(a.get("runId")) for a in items.values()} - set(self.runs):
                self.runs[run_id] = await self._run_info(client, run_id)
            return items
        except ApiError as exc:  # the service went away or refused: keep what was shown
            log.debug("approvals not refreshed: %s", exc)
            return None
        finally:
            await client.close()

    @staticmethod
    async def _run_info(client: ApiClient, run_id: str) -> RunInfo:
        try:
            state = await client.get_run(run_id)
        except ApiError:
            return RunInfo()
        labels = {nid: str(n.get("label") or nid[:8])
                  for nid, n in (state.get("nodes") or {}).items()}
        return RunInfo(str(state.get("workflowName") or ""), labels)

    def _asked(self, task: asyncio.Task) -> None:
        if task.cancelled() or not isValid(self):
            return
        if task.exception() is not None:
            log.warning("approvals not refreshed", exc_info=task.exception())
        elif (items := task.result()) is not None and items != self.items:
            self.items = items
            self.changed.emit()
        if self._again:
            self.refresh()

    # --- deciding ---------------------------------------------------------------------------

    def resolve(self, approval_id: str, status: str, args: dict | None = None,
                reason: str | None = None, merge: dict | None = None) -> asyncio.Task:
        """Send a decision straight to the service (the run need not be open anywhere);
        the task's result is True when the service took it."""
        task = asyncio.ensure_future(self._resolve(approval_id, status, args, reason, merge))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _resolve(self, approval_id: str, status: str, args: dict | None,
                       reason: str | None, merge: dict | None) -> bool:
        info = find_service(self._data_dir())
        if info is None:
            return False
        client = info.client(timeout=ASK_TIMEOUT)
        try:
            await client.resolve(approval_id, status, modified_args=args, reason=reason,
                                 merge=merge)
        except ApiError as exc:
            log.info("approval %s not resolved: %s", approval_id, exc)
            return False
        finally:
            await client.close()
        if isValid(self):
            self.items.pop(approval_id, None)
            self.changed.emit()
            self.refresh()
        return True

    # --- closing ----------------------------------------------------------------------------

    def stop(self) -> None:
        """No more asking (the window closes); a request under way is cancelled, and its
        client closes as the loop runs on."""
        if isValid(self):
            self._timer.stop()
            if isValid(self._window):
                self._window.removeEventFilter(self)
        if self._asking is not None and not self._asking.done():
            self._asking.cancel()

    async def aclose(self) -> None:
        """Stop, and wait until nothing of the feed is left open."""
        self.stop()
        pending = [t for t in (self._asking, *self._tasks) if t is not None]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
