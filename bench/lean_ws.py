"""A lean follower of a run's stream for the service bench's crowd, like ``wrk`` for HTTP:
as little of the machine's CPU as a client that checks every event can take.

The crowd's clients stand for dashboards that, in real use, are mostly on other machines;
on the bench's 2-core machine every cycle they take is taken from the engine under test.
An aiohttp client copies each frame's payload several times in Python and decodes it as
text. This one reads the socket into one buffer (``asyncio.BufferedProtocol``), finds the
frames in place, and reads only each frame's first and last seq: each frame begins where
the last one ended, and the stream ends with the run's end. (Every event of the very
same frames is checked by the bench's measuring client, which decodes them all: a frame
is encoded once for every client, desktop/api/feeds.py.) A close as too slow (4008) is
answered by reconnecting with ``after=<last seq>``, as every client should.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from urllib.parse import urlsplit

SEQ = b'"seq":'
ENDS = (b'"run.completed"', b'"run.failed"', b'"run.stopped"')
CLOSE_TOO_SLOW = 4008
TAIL = 4096
"""Bytes at a frame's end searched for the run's end event."""
CHUNK = 1 << 20
"""Bytes read at once: a few frames, so each wake of the loop does a lot of work."""


def _masked_frame(opcode: int, payload: bytes) -> bytes:
    """A client frame (RFC 6455 5.3: masked); a zero mask leaves the payload as it is."""
    assert len(payload) < 126  # control frames only
    return struct.pack("!BB4s", 0x80 | opcode, 0x80 | len(payload), b"\0\0\0\0") + payload


class _Follower(asyncio.BufferedProtocol):
    """One connection: the handshake's answer, then frames, until the stream ends or
    closes (``done``: the close code, or None when the run's end came)."""

    def __init__(self, expect_after: int) -> None:
        self.buf = bytearray(CHUNK)
        self.filled = 0
        self.upgraded = False
        self.last = expect_after
        self.seen = 0
        loop = asyncio.get_running_loop()
        self.first: asyncio.Future[None] = loop.create_future()
        self.done: asyncio.Future[int | None] = loop.create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def get_buffer(self, sizehint: int) -> memoryview:
        if len(self.buf) - self.filled < CHUNK // 4:
            self.buf.extend(bytes(CHUNK))  # a frame larger than the buffer: grow it
        return memoryview(self.buf)[self.filled:]

    def buffer_updated(self, nbytes: int) -> None:
        self.filled += nbytes
        try:
            used = self._consume()
        except RuntimeError as exc:
            self._end(exc)
            return
        if used:
            self.buf[:self.filled - used] = self.buf[used:self.filled]
            self.filled -= used

    def _consume(self) -> int:
        at = 0
        if not self.upgraded:
            end = self.buf.find(b"\r\n\r\n", 0, self.filled)
            if end < 0:
                return 0
            if not self.buf.startswith(b"HTTP/1.1 101"):
                raise RuntimeError(bytes(self.buf[:end]).decode(errors="replace"))
            self.upgraded, at = True, end + 4
        while not self.done.done():
            frame = self._frame(at)
            if frame is None:
                break
            at = frame
        return at

    def _frame(self, at: int) -> int | None:
        """Handle the frame at ``at``; where the next one starts, or None when it is not
        all in yet."""
        if self.filled - at < 2:
            return None
        opcode, size = self.buf[at] & 0x0F, self.buf[at + 1] & 0x7F
        start = at + 2
        if size == 126:
            if self.filled - at < 4:
                return None
            size, start = struct.unpack_from("!H", self.buf, start)[0], start + 2
        elif size == 127:
            if self.filled - at < 10:
                return None
            size, start = struct.unpack_from("!Q", self.buf, start)[0], start + 8
        end = start + size
        if end > self.filled:
            return None
        if opcode in (0x1, 0x2):
            self._events(start, end)
        elif opcode == 0x9:  # ping
            assert self.transport is not None
            self.transport.write(_masked_frame(0xA, bytes(self.buf[start:end])))
        elif opcode == 0x8:
            code = struct.unpack_from("!H", self.buf, start)[0] if size >= 2 else 1005
            self._end(code)
        return end

    def _events(self, start: int, end: int) -> None:
        first, last = self._seq(self.buf.find(SEQ, start, end)), \
            self._seq(self.buf.rfind(SEQ, start, end))
        if first != self.last + 1 or last < first:
            raise RuntimeError(f"gap or duplicate after seq {self.last}: a frame of "
                               f"{first} to {last}")
        self.seen += last - first + 1
        self.last = last
        if not self.first.done():
            self.first.set_result(None)
        # the run's end is its last event, and a short one: only the frame's tail is read
        tail = max(start, end - TAIL)
        if any(self.buf.find(mark, tail, end) >= 0 for mark in ENDS):
            self._end(None)

    def _seq(self, at: int) -> int:
        if at < 0:
            raise RuntimeError(f"a frame with no event after seq {self.last}")
        at += len(SEQ)
        return int(bytes(self.buf[at:at + 20]).split(b",")[0].split(b"}")[0])

    def _end(self, outcome: int | Exception | None) -> None:
        if self.done.done():
            return
        if isinstance(outcome, Exception):
            self.done.set_exception(outcome)
        else:
            self.done.set_result(outcome)
        assert self.transport is not None
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_exception(RuntimeError(f"the stream was cut after seq {self.last}"))


async def follow(url: str, headers: dict[str, str], expect: int,
                 on_first=None) -> int:
    """Follow the stream at ``url`` (``http://host:port/path``) to the run's end; the
    times it was closed as too slow. Raises when an event is missing or repeated."""
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()
    last = drops = seen = 0
    while True:
        follower = _Follower(last)
        transport, _ = await loop.create_connection(lambda f=follower: f, parts.hostname,
                                                    parts.port)
        key = base64.b64encode(os.urandom(16)).decode()
        head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        transport.write(
            f"GET {parts.path}?after={last} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{head}\r\n".encode())
        try:
            if on_first is not None:
                await asyncio.wait([follower.first, follower.done],
                                   return_when=asyncio.FIRST_COMPLETED)
                on_first()
                on_first = None
            outcome = await follower.done
        finally:
            transport.close()
        last, seen = follower.last, seen + follower.seen
        if outcome is None:
            break
        if outcome != CLOSE_TOO_SLOW:
            raise RuntimeError(f"the stream closed with {outcome} after seq {last}")
        drops += 1
    if seen != last or seen < expect:
        raise RuntimeError(f"a client saw {seen} events (last seq {last}, {expect} deltas)")
    return drops


__all__ = ["follow"]
