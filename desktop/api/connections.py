"""Slow and many clients: how long a request may take to arrive, how many connections the
service holds, and client WebSocket frames that are not masked.

aiohttp 3.14 has none of this built in. Its ``RequestHandler`` takes no read timeout: the
only clock on a connection that never completes a request head is the keep-alive one,
armed when the connection opens and after each response (3630 s by default), so 200
connections trickling a header byte at a time stay open for an hour. It has no
connection limit. Its WebSocket reader is the same on both sides and never looks at the
mask bit, though RFC 6455 section 5.1 says a server MUST close the connection on a
client frame that is not masked. So, with :class:`GuardedRunner` in place of
``web.AppRunner``:

- **Request head.** A connection has :attr:`Limits.head_timeout` seconds to deliver a
  complete request head, counted from its opening and, for the next request on a
  kept-alive connection, from that request's first byte; then it is closed. An idle
  kept-alive connection (no byte of a next request yet) keeps aiohttp's keep-alive
  behaviour.
- **Request body.** :func:`read_body` reads a body whole within
  :attr:`Limits.body_timeout` seconds, or the answer is 408 and the connection is closed
  (the service's ``guard`` middleware calls it before any handler, so no handler ever
  waits on a slow body).
- **Connections.** At most :attr:`Limits.max_connections` are open at once (WebSocket
  streams count). At the cap, a new connection takes the place of the oldest one still
  waiting for its request head (answered with the short 503 below and closed), else of
  the longest-held idle kept-alive one (closed, as nginx does when it runs short; its
  client opens another), else it is answered at once with a short 503 and closed (a
  client that already sent its request may see the close as a reset instead); the
  service logs one WARNING line a minute at most about refusals, never a traceback.
  Without the first, any local process opening a few hundred bare sockets held every
  place until their head deadlines, and kept token holders out for as long as it
  reopened them; waiting ones go before idle ones because an idle connection has at
  least been answered (often a token holder's), a waiting one has shown nothing. A new
  connection waits behind every older one, so a client sending its head at once is
  pushed out only by as many newer connections as the cap before its head arrives.
  Without the second, idle kept-alive connections (aiohttp keeps them an hour, and a
  401 is enough to get one) could hold every place. Only connections with a request
  under way (a token holder's: the token is checked before a body is read) or a
  WebSocket stream keep their place at the cap. Nothing is kept but the connections
  themselves, so memory stays bounded by the cap.
- **Streams that end on a client that stopped reading.** When a WebSocket stream ends
  (closed as too slow with 4008, the client gone, the heartbeat unanswered), what the
  service still holds for the client, the close frame last, may sit in the transport's
  buffer behind a client that reads nothing; asyncio closes such a transport only once
  it is written out, so the connection (in CLOSE-WAIT once the client has half-closed)
  and its place under the cap were held for as long as the client stayed connected.
  :meth:`GuardedHandler.finish_within` gives it :attr:`Limits.drain_timeout` seconds to
  be written out, then aborts the transport; a slow client that reads within that time
  still gets everything, the close frame included. A WebSocket client that half-closes
  gets the same bound at once (its stream would otherwise go on until the heartbeat).
- **Answers a client does not read.** A plain HTTP client that sends a request and never
  reads a large answer held its connection and its place for as long as it liked: aiohttp
  waits for the transport's buffer to drain with no clock. While an answer's bytes are
  buffered, :class:`~desktop.api.write_watch.WriteWatch` aborts the transport once
  :attr:`Limits.write_timeout` seconds pass without the client taking any of them (logged
  at INFO); a client that reads slowly but steadily gets the whole answer.
- **Malformed requests.** A request aiohttp's HTTP parser refuses (a header line over
  8190 bytes, a duplicated Host, a bad Content-Length or chunk size, a Content-Encoding
  it can not decode, bytes that are not HTTP) never reaches a handler or middleware;
  :meth:`GuardedHandler.handle_error` answers it with the service's JSON error shape
  (400 ``bad_request`` quoting the parser's reason, escaped and short) in place of
  aiohttp's plain text, and the connection is closed.
- **Masks.** Once a connection is upgraded to a WebSocket, every client frame header is
  checked before aiohttp's reader sees the bytes (:class:`MaskedFramesOnly`); an
  unmasked one gets a close frame with 1002 (protocol error) and the connection closed.
"""

from __future__ import annotations

import asyncio
import logging
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import WSCloseCode, web
from aiohttp.http_exceptions import ContentEncodingError, LineTooLong
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from desktop.api.errors import error_response, internal_error
from desktop.api.log_guard import short_reason
from desktop.api.stream import CLOSE_TIMEOUT
from desktop.api.write_watch import WriteWatch

log = logging.getLogger(__name__)

HEAD_TIMEOUT = 10.0
"""Seconds a connection has to deliver a complete request head."""
BODY_TIMEOUT = 30.0
"""Seconds a request body has to arrive whole (8 MiB takes milliseconds on loopback)."""
DRAIN_TIMEOUT = 30.0
"""Seconds an ended WebSocket stream's connection has to write out what it still holds
for its client (the close frame last) before it is aborted: a client reading at any
useful pace takes well under a second for the few MiB that can be buffered."""
WRITE_TIMEOUT = 30.0
"""Seconds an HTTP answer's buffered bytes may wait with the client taking none of them
before the connection is aborted: progress, not the whole answer, is timed."""
MAX_CONNECTIONS = 256
"""Connections the service holds open at once, WebSocket streams included."""
WARN_EVERY = 60.0
"""Seconds between two log lines about refused connections."""


@dataclass(frozen=True)
class Limits:
    """The bounds above; tests make them small."""

    head_timeout: float = HEAD_TIMEOUT
    body_timeout: float = BODY_TIMEOUT
    max_connections: int = MAX_CONNECTIONS
    drain_timeout: float = DRAIN_TIMEOUT
    write_timeout: float = WRITE_TIMEOUT
    close_timeout: float = CLOSE_TIMEOUT
    """Seconds a WebSocket stream's closing may take (desktop/api/stream.py)."""


LIMITS: web.AppKey[Limits] = web.AppKey("limits", Limits)


def refusal(cap: int) -> bytes:
    """The whole answer to a connection over the cap, written before any request is read."""
    body = orjson.dumps({"error": {
        "code": "too_many_connections",
        "message": f"the service already holds {cap} connections, the most it serves at "
                   "once; close some or try again in a moment"}})
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n")
    return head.encode("ascii") + body


async def read_body(request: web.Request, timeout: float) -> web.StreamResponse | None:
    """Read ``request``'s body into the request (handlers then get it from there) within
    ``timeout`` seconds; None when it arrived, else the 408 to answer with."""
    if not request.body_exists:
        return None
    try:
        async with asyncio.timeout(timeout):
            await request.read()
    except TimeoutError:
        response = error_response(408, "body_timeout",
                                  f"the request body did not arrive within {timeout:g} s")
    except web.RequestPayloadError as exc:  # e.g. Content-Encoding: gzip on a plain body
        response = error_response(400, "invalid_body", f"the request body could not be "
                                  f"read as sent ({exc.__cause__ or exc}); send it as "
                                  "plain JSON, or encoded as its Content-Encoding says")
    except ConnectionError:  # the client left halfway: nobody to answer
        log.info("%s %s: the client closed the connection before its body arrived",
                 request.method, request.path)
        response = error_response(400, "body_incomplete", "the request body was cut off")
    else:
        return None
    response.force_close()  # the rest of it may still be on its way: no next request
    return response


class RefusalLog:
    """One WARNING line per ``every`` seconds at most about refused connections, saying
    how many were refused since the last one."""

    def __init__(self, every: float = WARN_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self.refused = 0
        self._last: float | None = None

    def note(self, cap: int) -> None:
        self.refused += 1
        now = self.clock()
        if self._last is not None and now - self._last < self.every:
            return
        self._last = now
        log.warning("refused %d connection(s): %d are open, the most the service holds",
                    self.refused, cap)
        self.refused = 0


class MaskedFramesOnly:
    """Stands in front of aiohttp's WebSocket reader and passes it the bytes of masked
    frames only. It follows frame boundaries on the raw stream (a header may be split
    across reads anywhere, and a payload is skipped without copying); at the first
    frame whose mask bit is clear it calls ``refuse`` and passes nothing more."""

    __slots__ = ("_head", "_inner", "_refuse", "_skip", "failed")

    def __init__(self, inner: Any, refuse: Callable[[], None]) -> None:
        self._inner = inner
        self._refuse = refuse
        self._head = bytearray()
        """The current frame's header bytes read so far (2 to 14 of them)."""
        self._skip = 0
        """Payload bytes of the current frame still to come."""
        self.failed = False

    @staticmethod
    def _header_size(head: bytearray) -> int:
        length = head[1] & 0x7F
        return 2 + (2 if length == 126 else 8 if length == 127 else 0) + 4

    @staticmethod
    def _payload_size(head: bytearray) -> int:
        length = head[1] & 0x7F
        if length == 126:
            return int(struct.unpack_from("!H", head, 2)[0])
        if length == 127:
            return int(struct.unpack_from("!Q", head, 2)[0])
        return length

    def _all_masked(self, data: bytes) -> bool:
        pos, end = 0, len(data)
        while pos < end:
            if self._skip:
                step = min(self._skip, end - pos)
                self._skip -= step
                pos += step
                continue
            need = 2 if len(self._head) < 2 else self._header_size(self._head)
            take = min(need - len(self._head), end - pos)
            self._head += data[pos:pos + take]
            pos += take
            if len(self._head) < 2:
                continue
            if not self._head[1] & 0x80:
                return False
            if len(self._head) == self._header_size(self._head):
                self._skip = self._payload_size(self._head)
                self._head.clear()
        return True

    def feed_data(self, data: bytes | bytearray | memoryview) -> tuple[bool, bytes]:
        if not self.failed and self._all_masked(bytes(data)):
            return self._inner.feed_data(data)  # type: ignore[no-any-return]
        if not self.failed:
            self.failed = True
            self._refuse()
        return True, b""  # eof: the protocol stops reading this connection

    def feed_eof(self) -> None:
        self._inner.feed_eof()


def _reason(exc: BaseException) -> str:
    """Why the parser refused a request, in the service's words where it has them."""
    if isinstance(exc, LineTooLong):  # its own words repeat the line's first 100 bytes
        limit = exc.args[1] if len(exc.args) > 1 else "the most"
        limit = f"{limit:,}" if isinstance(limit, int) else str(limit)
        return (f"its URL or one of its headers is over {limit} bytes, the most the service "
                "reads; send long values in the JSON body instead")
    if str(getattr(exc, "message", "")) == "Too many headers received":
        return ("it has more headers than the service reads; send only the headers the "
                "request needs")
    return short_reason(exc)


class GuardedHandler(RequestHandler):
    """aiohttp's connection protocol with the head deadline, the cap and the mask check.

    It reads some of aiohttp 3.14's own fields (the lock pins it, and
    tests/api/test_slow_clients.py fails if they change meaning): ``_request_count`` (one
    more each time the parser completes a request head), ``_messages`` (heads parsed and
    not yet taken), ``_upgraded`` and ``_payload_parser`` (a WebSocket),
    ``_request_in_progress``, and ``_waiter`` (set while waiting for the next request).
    """

    __slots__ = ("_counted", "_drain_timer", "_head_timer", "_last_body", "_refused",
                 "_writes")

    def __init__(self, manager: GuardedServer, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._counted = False
        """Holding one of the server's places (until lost or evicted)."""
        self._refused = False
        self._head_timer: asyncio.TimerHandle | None = None
        self._drain_timer: asyncio.TimerHandle | None = None
        """Set once the connection's last answer is written: it aborts the transport if
        what that left in the buffer is not written out in time."""
        self._last_body: Any = None
        """The body stream of the newest request head; a byte arriving once it is whole
        starts the next request."""
        self._writes: WriteWatch | None = None
        """Times the client's reading of HTTP answers (not of a WebSocket stream, which
        has its own bounds)."""

    @property
    def _server(self) -> GuardedServer:
        manager = self._manager
        assert isinstance(manager, GuardedServer)
        return manager

    @property
    def idle(self) -> bool:
        """Kept alive between two requests: none under way or queued, no byte of the next
        one yet (no head deadline running), not a WebSocket."""
        return (self._counted and self._head_timer is None and self._waiter is not None
                and not self._request_in_progress and not self._messages
                and not self._upgraded)

    @property
    def awaiting_head(self) -> bool:
        """Opened (or kept alive) and sending a request head that is not whole yet, or
        nothing at all: the head deadline runs, no request is under way or queued, not a
        WebSocket. Such a connection has shown no token."""
        return (self._counted and self._head_timer is not None
                and not self._request_in_progress and not self._messages
                and not self._upgraded and self._payload_parser is None)

    def evict(self, answer: bytes = b"") -> None:
        """Give this connection's place back now and close it, after writing ``answer``."""
        self._counted = False  # so its connection_lost leaves the count alone
        self._server.open -= 1
        self._server.handlers.pop(self, None)
        if answer and self.transport is not None:
            self.transport.write(answer)  # written out before the close completes
        self.force_close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        server = self._server
        if server.open >= server.limits.max_connections and not server.make_room():
            # refused before aiohttp sees it: no task, no parser work, nothing tracked
            assert isinstance(transport, asyncio.Transport)
            transport.write(server.refusal)
            transport.close()  # after the write is flushed
            self._refused = True
            server.refusals.note(server.limits.max_connections)
            return
        server.open += 1
        server.handlers[self] = None
        self._counted = True
        super().connection_made(transport)
        assert isinstance(transport, asyncio.Transport)
        self._writes = WriteWatch(self._loop, transport, server.limits.write_timeout,
                                  self._answer_unread)
        self._arm_head_timer()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._refused:
            return  # refused in connection_made; aiohttp never knew it
        if self._counted:  # else evicted, and its place already given back
            self._counted = False
            self._server.open -= 1
            self._server.handlers.pop(self, None)
        self._disarm_head_timer()
        if self._drain_timer is not None:  # written out (or lost) in time
            self._drain_timer.cancel()
            self._drain_timer = None
        if self._writes is not None:
            self._writes.stop()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        # the transport holds more than its high-water mark: the answer's writer now
        # waits on the client, with no clock of aiohttp's
        super().pause_writing()
        if self._writes is not None and not self._upgraded:
            self._writes.watch()

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._writes is not None:
            self._writes.progressed()  # the client took bytes down to the low-water mark

    async def finish_response(self, request: BaseRequest, resp: web.StreamResponse,
                              start_time: float | None) -> tuple[web.StreamResponse, bool]:
        done = await super().finish_response(request, resp, start_time)
        # the tail of an answer may stay buffered after it "finished" (under the
        # high-water mark, so no pause): a client that reads none of it is timed too
        if self._writes is not None and not self._upgraded:
            self._writes.watch()
        return done

    def _answer_unread(self, transport: asyncio.Transport, waited: float) -> None:
        peer = transport.get_extra_info("peername")
        log.info("an HTTP client (%s) took none of its answer for %.0f s; its connection "
                 "is cut off", peer[0] if isinstance(peer, tuple) else "?", waited)
        transport.abort()  # connection_lost follows: its handler ends, its place is free

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._upgraded or self._payload_parser is not None:
            super().data_received(data)
            return
        between = self._last_body is None or self._last_body.is_eof()
        if between and data and self._head_timer is None:
            self._arm_head_timer()  # the first byte of the next request
        heads = self._request_count
        super().data_received(data)
        if self._request_count != heads:
            self._disarm_head_timer()
            if self._messages:
                self._last_body = self._messages[-1][1]

    def eof_received(self) -> bool | None:
        # A WebSocket client half-closed: asyncio now closes the transport once its buffer
        # is written out, which a client that stopped reading never lets happen, and the
        # stream's own reader does not see this EOF (aiohttp passes it on to no one).
        if self._upgraded or self._payload_parser is not None:
            self.finish_within(self._server.limits.drain_timeout)
        return super().eof_received()

    def finish_within(self, timeout: float) -> None:
        """Abort the connection unless what its transport buffers is written out (and the
        connection so closed) within ``timeout`` s; for a connection that is done (its
        WebSocket stream ended, its client half-closed). Once armed, it stays armed."""
        transport = self.transport
        if transport is None or self._drain_timer is not None \
                or not transport.get_write_buffer_size():
            return  # nothing waits to be written: closing it is immediate
        self._drain_timer = self._loop.call_later(timeout, self._drain_too_slow, timeout)

    def _drain_too_slow(self, timeout: float) -> None:
        self._drain_timer = None
        transport = self.transport
        if transport is not None:
            log.info("a stream client read nothing for %g s after its stream ended; its "
                     "connection is cut off", timeout)
            transport.abort()  # connection_lost follows: its place under the cap is free

    def handle_error(self, request: BaseRequest, status: int = 500,
                     exc: BaseException | None = None, message: str | None = None
                     ) -> web.StreamResponse:
        # aiohttp's own answer is plain text; it is built only for what the call does
        # besides (logging the refusal, which log_guard shortens, and raising when an
        # answer has begun already)
        super().handle_error(request, status, exc, message)
        if status >= 500:
            response = internal_error()
        elif isinstance(exc, ContentEncodingError):  # its words: "install `Brotli`"
            response = error_response(status, "unsupported_content_encoding",
                                      "the body's Content-Encoding is not one the service "
                                      "decodes; send the body as plain JSON, or encoded "
                                      "with gzip or deflate",
                                      "Content-Encoding")
        else:
            reason = _reason(exc) if exc is not None else (message or "malformed")
            response = error_response(status, "bad_request",
                                      f"the request is not well-formed HTTP and was not "
                                      f"read: {reason}")
        response.force_close()
        return response

    def set_parser(self, parser: Any, data_received_cb: Callable[[], None] | None = None
                   ) -> None:
        # every byte after the upgrade, those that came with its request included, goes
        # through the mask check before aiohttp's reader
        if self._writes is not None:
            self._writes.stop()  # a WebSocket stream: bounded by its queue and drain_timeout
        super().set_parser(MaskedFramesOnly(parser, self._unmasked_frame), data_received_cb)

    def _unmasked_frame(self) -> None:
        transport = self.transport
        if transport is not None:
            reason = b"client frames must be masked (RFC 6455 5.1)"
            payload = struct.pack("!H", WSCloseCode.PROTOCOL_ERROR) + reason
            transport.write(bytes([0x88, len(payload)]) + payload)  # FIN + close, unmasked
        self.force_close()  # closes the transport once the close frame is written

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self._loop.call_later(self._server.limits.head_timeout,
                                                 self._head_too_slow)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self._request_in_progress:
            self.close()  # a pipelined head is late: finish the answer under way, then close
        else:
            self.force_close()


class GuardedServer(web.Server):
    """aiohttp's connection factory, making :class:`GuardedHandler` protocols and counting
    the open ones."""

    def __init__(self, plain: web.Server, limits: Limits) -> None:
        # the same request handler, request factory and protocol settings as the server
        # aiohttp built for the app (``_kwargs``: what it passes to each protocol)
        self._handler_kwargs: dict[str, Any] = dict(plain._kwargs)
        super().__init__(plain.request_handler, request_factory=plain.request_factory,
                         handler_cancellation=plain.handler_cancellation,
                         **self._handler_kwargs)
        self.limits = limits
        self.open = 0
        """Connections accepted and not yet lost."""
        self.handlers: dict[GuardedHandler, None] = {}
        """Their protocols, oldest first."""
        self.refusals = RefusalLog()
        self.refusal = refusal(limits.max_connections)

    def make_room(self) -> bool:
        """Close the oldest connection still waiting for its request head (it gets the
        503), else the oldest idle kept-alive one; whether there was one. Its place counts
        as free at once (its close completes in a moment)."""
        return self.evict_awaiting_head() or self.evict_idle()

    def evict_awaiting_head(self) -> bool:
        """Close the oldest connection that has not sent a whole request head; whether
        there was one."""
        for handler in self.handlers:  # oldest first; at most the cap of them
            if handler.awaiting_head:
                handler.evict(self.refusal)
                return True
        return False

    def evict_idle(self) -> bool:
        """Close the oldest idle kept-alive connection, if there is one; whether there was.
        Its place counts as free at once (its close completes in a moment)."""
        for handler in self.handlers:
            if handler.idle:
                handler.evict()
                return True
        return False

    def __call__(self) -> RequestHandler:
        return GuardedHandler(self, loop=asyncio.get_running_loop(), **self._handler_kwargs)


class GuardedRunner(web.AppRunner):
    """``web.AppRunner`` serving with :class:`GuardedServer`, bounded by the app's
    :data:`LIMITS` (the defaults when it has none)."""

    async def _make_server(self) -> web.Server:
        plain = await super()._make_server()
        return GuardedServer(plain, self.app.get(LIMITS, Limits()))
