"""Following one run's events over the service's WebSocket, across reconnects.

The stream resumes with ``after=<last seq seen>``, so a dropped connection (or a
close for being too slow) loses nothing and repeats nothing; events at or below
the last seq are dropped here as well, in case a server ever sends one twice.
When the service can not be reached for a while, :meth:`RunFollower.run` raises
:class:`~desktop.api.client.ServiceUnavailable` and the caller decides (the GUI
offers to restart the service). Qt-free: the GUI and the CLI both use it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from desktop.api.client_errors import ServiceUnavailable
from desktop.contract.api import MAX_PAGE

if TYPE_CHECKING:
    from desktop.api.client import ApiClient

# how long a broken stream is retried before the service counts as gone
RETRY_DELAYS = (0.05, 0.1, 0.2, 0.4, 0.8)
PAGE_SIZE = MAX_PAGE
"""Events per page when a run's past is taken over HTTP before the stream."""


class RunFollower:
    """Delivers the run's events after ``after`` to ``on_events``, in seq order, once each."""

    def __init__(self, client: ApiClient, run_id: str, after: int,
                 on_events: Callable[[list[dict[str, Any]]], None]) -> None:
        self.client = client
        self.run_id = run_id
        self.last_seq = after
        self.on_events = on_events
        self.connections = 0  # how many times a stream was opened (tests, diagnostics)
        self.pages = 0  # pages of the past taken by :meth:`catch_up`
        self.caught_up = after  # the last seq of those pages: the stream starts after it

    def _deliver(self, batch: list[dict[str, Any]]) -> None:
        fresh = [e for e in batch if e["seq"] > self.last_seq]
        if not fresh:
            return
        self.last_seq = fresh[-1]["seq"]
        self.on_events(fresh)

    async def catch_up(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The run's past, taken in pages of ``GET .../events?after=<last seq>`` until the
        service has no more (not handed to ``on_events``: the caller shows it as the
        run's history); :meth:`run` then streams after the last seq of the pages."""
        past: list[dict[str, Any]] = []
        while True:
            page = await self.client.events(self.run_id, limit=limit or PAGE_SIZE,
                                            after=self.last_seq)
            self.pages += 1
            fresh = [e for e in page["events"] if e["seq"] > self.last_seq]
            if fresh:
                self.last_seq = fresh[-1]["seq"]
                past.extend(fresh)
            if not (page.get("page") or {}).get("hasMore") or not fresh:
                self.caught_up = self.last_seq
                return past

    async def run(self) -> None:
        """Follow until cancelled; raises when the service is gone or refuses the stream."""
        failures = 0
        while True:
            try:
                self.connections += 1
                got = False
                async for batch in self.client.stream(self.run_id, self.last_seq):
                    failures, got = 0, True
                    self._deliver(batch)
                # a clean close (e.g. 4008, too slow): reconnect from last_seq, at once
                # unless the socket closed without sending anything
                if not got:
                    await asyncio.sleep(RETRY_DELAYS[-1])
            except ServiceUnavailable:
                if failures >= len(RETRY_DELAYS):
                    raise
                await asyncio.sleep(RETRY_DELAYS[failures])
                failures += 1
