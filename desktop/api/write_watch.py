"""How long an HTTP answer may wait on a client that reads none of it.

asyncio writes what the kernel takes and keeps the rest in the transport's buffer; aiohttp's
handler then waits, with no clock, for that buffer to fall below its low-water mark. A
client that sends a request and never reads a large answer (a long page of events, any big
JSON body) so keeps its connection, its handler and its place under the connection cap for
as long as it stays connected; and a connection closed with bytes still buffered
(``transport.close()``) stays open until they are written out, that is for good.

:class:`WriteWatch` bounds the time *without progress*, not the time an answer takes: a
client that reads slowly but steadily gets the whole of it, however long that is. While
the transport buffers anything it looks every so often; the client took some of it when
the buffer is smaller than it was the last time it looked, or when the transport said it
could take more (``resume_writing``: the buffer fell to its low-water mark). Once
``bound`` seconds pass with neither, it calls ``stalled`` with the transport and the
seconds waited (the connection aborts the transport). As progress is seen at the looks
only, a client gets at least ``bound`` and at most twice that after the last byte it read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class WriteWatch:
    """Watches one transport's write buffer; :meth:`watch` when it may hold bytes."""

    __slots__ = ("_bound", "_left", "_loop", "_progress_at", "_stalled", "_timer",
                 "_transport")

    def __init__(self, loop: asyncio.AbstractEventLoop, transport: asyncio.Transport,
                 bound: float, stalled: Callable[[asyncio.Transport, float], None]) -> None:
        self._loop = loop
        self._transport = transport
        """Kept here: aiohttp forgets its own reference once it closes the connection, and
        a close with bytes buffered is exactly what may never complete."""
        self._bound = bound
        self._stalled = stalled
        self._timer: asyncio.TimerHandle | None = None
        self._left = 0
        """Bytes buffered at the last look."""
        self._progress_at = 0.0
        """When the client was last seen taking bytes (or the watch began)."""

    @property
    def watching(self) -> bool:
        return self._timer is not None

    def watch(self) -> None:
        """Start watching, unless already watching or nothing is buffered."""
        if self._timer is not None:
            return
        left = self._transport.get_write_buffer_size()
        if not left:
            return
        self._left = left
        self._progress_at = self._loop.time()
        self._timer = self._loop.call_later(self._bound, self._look)

    def progressed(self) -> None:
        """The client took bytes (the transport resumed writing)."""
        self._progress_at = self._loop.time()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _look(self) -> None:
        self._timer = None
        left = self._transport.get_write_buffer_size()
        if not left:
            return  # written out: the next answer that fills the buffer starts a watch
        now = self._loop.time()
        if left < self._left:
            self._progress_at = now  # some time since the last look; counted from now
        self._left = left
        waited = now - self._progress_at
        if waited >= self._bound:
            self._stalled(self._transport, waited)
            return
        self._timer = self._loop.call_later(self._bound - waited, self._look)
