"""The WebSocket event stream of a run: catch-up from the log, then live events.

A client connects to ``/api/runs/{id}/stream?after=SEQ`` and receives text
frames, each a JSON array of events in seq order: first every event with
``seq > after`` read from ``events.jsonl``, then each batch the engine makes
durable. Never a gap, never a duplicate, because:

- the client joins the run's feed *before* reading the log, so no batch written
  after the read started is missed;
- live batches arrive after their events are on disk (the recorder tells its
  listeners after the write), so any hole in front of a batch (events written
  before the client joined, or dropped from its queue while it caught up, or
  written while another engine resumed the run) is read from the log;
- everything at or below the last seq sent is skipped.

Each client has a bounded queue (one batch, however large, always fits an
empty one). While it catches up from the log an overflow
just empties the queue (the log has those events); once live, an overflow means
the client can not keep up, and it is closed with 4008 and reconnects with
``after=<last seq>``. Publishing never waits on a client, so neither the engine
nor the other clients slow down. :mod:`desktop.api.feeds` hands the batches out,
gathered so that a client gets a few frames per tick rather than one per batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import Any, Protocol

import orjson
from aiohttp import WSCloseCode, WSMsgType, web

from desktop.views.reader import EventReader

log = logging.getLogger(__name__)

QUEUE_LIMIT = 20_000
"""Events a live client may have waiting before it is dropped as too slow."""
FRAME_EVENTS = 500
"""Most events in one frame."""
FRAME_BYTES = 1 << 20
"""A frame is closed once it holds this much (a single larger event gets its own)."""


def frames_of(events: list[dict[str, Any]]) -> list[tuple[bytes, int]]:
    """``events`` as frames: (JSON array as UTF-8, seq of its last event), in order.

    Bytes, not str: a batch is encoded once and the same bytes go to every client.
    """
    out: list[tuple[bytes, int]] = []
    for start in range(0, len(events), FRAME_EVENTS):
        chunk = events[start:start + FRAME_EVENTS]
        data = orjson.dumps(chunk)  # one call for the common case: small events
        if len(data) <= FRAME_BYTES:
            out.append((data, chunk[-1]["seq"]))
        else:
            out += _split(chunk)
    return out


def _split(events: list[dict[str, Any]]) -> list[tuple[bytes, int]]:
    """Frames of ``events`` cut by size: each closed before it would pass FRAME_BYTES."""
    out: list[tuple[bytes, int]] = []
    parts: list[bytes] = []
    size = last = 0
    for event in events:
        data = orjson.dumps(event)
        if parts and (len(parts) >= FRAME_EVENTS or size + len(data) > FRAME_BYTES):
            out.append((b"[" + b",".join(parts) + b"]", last))
            parts, size = [], 0
        parts.append(data)
        size += len(data) + 1
        last = event["seq"]
    if parts:
        out.append((b"[" + b",".join(parts) + b"]", last))
    return out


class Batch:
    """One durable batch of a run, shared by all its clients: encoded once, when needed."""

    __slots__ = ("_frames", "events")

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self._frames: list[tuple[bytes, int]] | None = None

    @property
    def first(self) -> int:
        return self.events[0]["seq"]

    @property
    def last(self) -> int:
        return self.events[-1]["seq"]

    def frames(self) -> list[tuple[bytes, int]]:
        if self._frames is None:
            self._frames = frames_of(self.events)
        return self._frames


class Kept(Protocol):
    """A run's frames already encoded (desktop/api/history.py)."""

    def after(self, seq: int) -> tuple[bytes, int] | None:
        """The frame that starts just after ``seq``, and the seq it ends with."""

    def next_start(self, seq: int) -> int | None:
        """Where the oldest frame starting after ``seq + 1`` starts."""


class NothingKept:
    """No frames kept: everything comes from the log."""

    def after(self, seq: int) -> tuple[bytes, int] | None:
        return None

    def next_start(self, seq: int) -> int | None:
        return None


CLOSE_TOO_SLOW = 4008
CLOSE_UNKNOWN_RUN = 4004
CLOSE_TIMEOUT = 5.0
"""Seconds a stream's closing may take (its close frame written, the client's answering
close read) before it is given up and the connection closed; the default of
``Limits.close_timeout`` (desktop/api/connections.py), which the service passes in."""


class StreamClient:
    """One WebSocket subscriber of one run."""

    def __init__(self, ws: web.WebSocketResponse, limit: int = QUEUE_LIMIT,
                 close_timeout: float = CLOSE_TIMEOUT) -> None:
        self.ws = ws
        self.limit = limit
        self.close_timeout = close_timeout
        self.live = False
        self.last_seq = 0
        self._batches: deque[Batch] = deque()
        self._queued = 0
        self._wake = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None
        self._kept: Kept = NothingKept()
        self._close_with: tuple[int, str] | None = None
        self._asked = asyncio.Event()

    # --- called by the feed (on the loop) ------------------------------------------------

    def offer(self, batch: Batch) -> None:
        """Queue a durable batch; never waits."""
        if self._close_with is not None:
            return
        count = len(batch.events)
        if self._queued and self._queued + count > self.limit:
            if self.live:
                self.close(CLOSE_TOO_SLOW,
                           f"client too slow; reconnect with after={self.last_seq}")
                return
            self._batches.clear()  # still catching up from the log, which has them all
            self._queued = 0
        self._batches.append(batch)
        self._queued += count
        self._wake.set()

    def close(self, code: int, message: str) -> None:
        """Stop sending, and have :meth:`serve` close the socket with ``code`` (once)."""
        if self._close_with is not None:
            return
        self._close_with = (code, message)
        if self._pump is not None:
            self._pump.cancel()
        self._asked.set()

    # --- the connection ------------------------------------------------------------------

    async def serve(self) -> None:
        """Read (and drop) what the client sends until it closes the socket, or until
        :meth:`close` is asked; then close it here.

        The close is made where no ``receive()`` is waiting: aiohttp's ``close()`` from
        another task while one waits drops the connection without waiting for the
        client's answering close frame, and the client then sees 1006 instead of the
        code it was sent.
        """
        reading = asyncio.ensure_future(self._read())
        asked = asyncio.ensure_future(self._asked.wait())
        try:
            await asyncio.wait((reading, asked), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (reading, asked):
                task.cancel()
            await asyncio.gather(reading, asked, return_exceptions=True)
        if self._close_with is None or self.ws.closed:
            return
        code, message = self._close_with
        # drain=False: the close frame goes after what is buffered; a client that never
        # reads gets it when it does, and the transport is closed after close_timeout
        # (then aborted if still not written out: Limits.drain_timeout, connections.py).
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=code, message=message.encode(),
                                                 drain=False), self.close_timeout)

    async def _read(self) -> None:
        async for _message in self.ws:
            pass  # clients have nothing to say; their frames are read and dropped

    # --- the sender ----------------------------------------------------------------------

    def start(self, reader: EventReader, after: int, kept: Kept | None = None
              ) -> asyncio.Task[None]:
        """Send from ``after`` on; a frame in ``kept`` is sent as it is instead of reading
        its events from the log."""
        self._kept = kept or NothingKept()
        self._pump = asyncio.create_task(self._run(reader, after), name="ws-stream")
        return self._pump

    async def _run(self, reader: EventReader, after: int) -> None:
        try:
            self.last_seq = after
            await self._send_log(reader, None)
            self.live = True
            while True:
                await self._wake.wait()
                self._wake.clear()
                batches = list(self._batches)
                self._batches.clear()
                self._queued = 0
                for batch in batches:
                    await self._send_batch(reader, batch)
        except asyncio.CancelledError:
            raise
        except (ConnectionError, RuntimeError) as exc:  # the peer went away mid-send
            log.debug("stream client gone: %s", exc)
        except Exception:
            log.exception("event stream failed")
            self.close(WSCloseCode.INTERNAL_ERROR, "the stream failed; reconnect with after=")

    async def _send_batch(self, reader: EventReader, batch: Batch) -> None:
        if batch.last <= self.last_seq:
            return  # sent already (from the log)
        if batch.first > self.last_seq + 1:  # a hole in front of it: the log has it
            await self._send_log(reader, batch.first)
        if batch.first == self.last_seq + 1:
            for text, last in batch.frames():  # encoded once for every client
                await self._send_frame(text, last)
        else:  # it overlaps what was sent
            await self._send([e for e in batch.events if e["seq"] > self.last_seq])

    async def _send_log(self, reader: EventReader, before: int | None) -> None:
        """Send every logged event after ``last_seq`` (and below ``before``)."""
        resync = True
        while True:
            if before is None and self._batches:
                # Live batches are queued: the log is read only up to the first of them.
                # Reading on to the log's end instead would chase a busy run's tail (each
                # page read, decoded and encoded for this client alone) and never go live.
                before = self._batches[0].first
            if before is not None and self.last_seq + 1 >= before:
                return
            kept = self._kept.after(self.last_seq)
            if kept is not None and (before is None or kept[1] < before):
                await self._send_frame(*kept)
                continue
            # from the log only up to where the kept frames take over again
            start = self._kept.next_start(self.last_seq) if resync else None
            upto = before if start is None or (before is not None and before <= start) \
                else start
            page = await asyncio.to_thread(reader.page, FRAME_EVENTS, upto, self.last_seq)
            if page.events:
                await self._send(page.events)
            elif upto != before:
                resync = False  # the log lacks what comes before `start`: read it all
            if not page.has_more and upto == before:
                return

    async def _send(self, events: list[dict[str, Any]]) -> None:
        for text, last in frames_of(events):
            await self._send_frame(text, last)

    async def _send_frame(self, data: bytes, last: int) -> None:
        # An uncompressed frame is in the transport once send_frame starts waiting for
        # the peer to drain it, so it counts as sent even if that wait is cancelled.
        self.last_seq = last
        await self.ws.send_frame(data, WSMsgType.TEXT)
