"""Asking the local service again and again while a widget is on screen: the part the
feeds that keep a window current share (every live run's approvals, the run list).

The service has no service-wide event feed, so a feed asks it every few seconds while
its widget is visible, and at once when the widget is shown or when told to. Each
request is an aiohttp call on the GUI thread's asyncio loop (qasync): it never blocks
the window and no worker thread is involved. One request is out at a time; a refresh
asked for meanwhile runs once that one is back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

from desktop.api.api_error import ApiError
from desktop.api.discovery import ServerInfo, find_service

if TYPE_CHECKING:
    from desktop.api.client import ApiClient

log = logging.getLogger(__name__)
POLL_MS = 2000
ASK_TIMEOUT = 5.0


class ServicePoll(QObject):
    """Calls :meth:`_ask` while ``watched`` is visible and hands each answer that is not
    None to :meth:`_took` (subclasses define both)."""

    def __init__(self, data_dir: Callable[[], Path], watched: QWidget,
                 parent: QObject | None = None, interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self._data_dir = data_dir  # a callable: the window may point at another folder later
        self._watched = watched
        watched.installEventFilter(self)  # asks at once when the widget (or its tab) shows
        self._asking: asyncio.Task | None = None
        self._tasks: set[asyncio.Future] = set()
        """Other requests of the feed's (decisions sent): waited for when it closes."""
        self._again = False  # a refresh was asked for while one was under way
        self.remote: ServerInfo | None = None
        """Another machine's service to ask instead of the data folder's (settings)."""
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    async def _ask(self) -> Any:
        """One request to the service; None when there is nothing new to take."""
        raise NotImplementedError

    def service(self) -> ServerInfo | None:
        """The service asked: another machine's when set, else the data folder's live one."""
        return self.remote or find_service(self._data_dir())

    async def _asking_service(self, call: Callable[[ApiClient], Awaitable[Any]],
                              none_running: Any) -> Any:
        """``call`` with a client of the service the data folder names; ``none_running``
        when no service runs, None when it went away or refused (what was shown stays)."""
        info = self.service()
        if info is None:
            return none_running
        client = info.client(timeout=ASK_TIMEOUT)
        try:
            return await call(client)
        except ApiError as exc:
            log.debug("%s not refreshed: %s", type(self).__name__, exc)
            return None
        finally:
            await client.close()

    def _took(self, answer: Any) -> None:
        """What the feed does with an answer."""
        raise NotImplementedError

    def _tick(self) -> None:
        if self._watched.isVisible():  # a hidden tab leaves the asking to the tab in front
            self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show:
            self.refresh()
        return False

    def can_ask(self) -> bool:
        """Whether :meth:`refresh` reaches a service: one runs for the data folder, and an
        asyncio loop runs Qt's events."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return isValid(self) and self._timer.isActive() and self.service() is not None

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

    def _asked(self, task: asyncio.Task) -> None:
        if task.cancelled() or not isValid(self):
            return
        if task.exception() is not None:
            log.warning("%s not refreshed", type(self).__name__, exc_info=task.exception())
        elif (answer := task.result()) is not None:
            self._took(answer)
        if self._again:
            self.refresh()

    def _keep(self, task: asyncio.Future) -> None:
        """Hold on to another request of the feed's until it is done."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def stop(self) -> None:
        """No more asking (the window closes); a request under way is cancelled, and its
        client closes as the loop runs on."""
        if isValid(self):
            self._timer.stop()
            if isValid(self._watched):
                self._watched.removeEventFilter(self)
        if self._asking is not None and not self._asking.done():
            self._asking.cancel()

    async def aclose(self) -> None:
        """Stop, and wait until nothing of the feed is left open."""
        self.stop()
        pending = [t for t in (self._asking, *self._tasks) if t is not None]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
