"""The aiohttp application of the local service: middlewares, routes, the event stream."""

from __future__ import annotations

import asyncio
import base64
import binascii

from aiohttp import WSCloseCode, web

from desktop.api.api_error import ApiError
from desktop.api.connections import LIMITS, GuardedHandler, Limits
from desktop.api.engine_loop import SAME_LOOP, Runs
from desktop.api.errors import error_response
from desktop.api.routes import ENGINES, ROUTES, SERVICE, int_query
from desktop.api.runs import RunService
from desktop.api.security import STREAM_ROUTE, guard, host_names, json_errors
from desktop.api.stream import CLOSE_UNKNOWN_RUN, QUEUE_LIMIT, StreamClient
from desktop.contract.api import MAX_BODY_BYTES
from desktop.views.reader import EventReader

STREAM_PATH = STREAM_ROUTE
QUEUE: web.AppKey[int] = web.AppKey("queue_limit", int)
MAX_CLIENT_FRAME = 64 * 1024
WEBSOCKET_VERSION = "13"
"""The one WebSocket version the service speaks (RFC 6455)."""


def create_app(service: RunService, token: str, host: str = "127.0.0.1",
               queue_limit: int = QUEUE_LIMIT, limits: Limits | None = None,
               engines: Runs = SAME_LOOP) -> web.Application:
    """The application serving ``service`` to clients holding ``token``; serve it with
    :class:`~desktop.api.connections.GuardedRunner`, which applies ``limits``. The
    service's work is done on ``engines`` (its own loop, in ``serve``); the streams'
    fan-out stays on this application's loop."""
    limits = limits or Limits()
    app = web.Application(middlewares=[json_errors, guard(token, host_names(host),
                                                          limits.body_timeout)],
                          client_max_size=MAX_BODY_BYTES)
    app[SERVICE] = service
    app[ENGINES] = engines
    app[LIMITS] = limits
    app[QUEUE] = queue_limit
    for route in ROUTES:
        app.router.add_route(route.method, route.path, route.handler)
    app.router.add_get(STREAM_PATH, stream)
    app.on_startup.append(_bind_loop)
    app.on_shutdown.append(_close_streams)
    return app


async def _bind_loop(app: web.Application) -> None:
    app[SERVICE].feeds.bind(asyncio.get_running_loop())


async def _close_streams(app: web.Application) -> None:
    app[SERVICE].feeds.close_all(WSCloseCode.GOING_AWAY, "the service is shutting down")


def _other_version(request: web.Request) -> web.Response | None:
    """426 for a WebSocket upgrade asking for another version than 13, naming the one the
    service speaks (RFC 6455 4.4); aiohttp would accept 7 and 8, drafts of the protocol."""
    if "websocket" not in request.headers.get("Upgrade", "").lower():
        return None  # not an upgrade at all: the handshake's 400 says so
    asked = request.headers.get("Sec-WebSocket-Version")
    if asked == WEBSOCKET_VERSION:
        return None
    said = f"version {asked[:20]!r}" if asked is not None else "no version"
    response = error_response(
        426, "upgrade_required", f"the upgrade asked for {said}; the service speaks WebSocket "
        f"version {WEBSOCKET_VERSION} (RFC 6455) only: send Sec-WebSocket-Version: "
        f"{WEBSOCKET_VERSION}", "Sec-WebSocket-Version")
    # RFC 9110 15.5.22: a 426 names the protocol to upgrade to
    response.headers.update({"Sec-WebSocket-Version": WEBSOCKET_VERSION,
                             "Upgrade": "websocket", "Connection": "Upgrade"})
    return response


def _bad_handshake(request: web.Request) -> web.Response | None:
    """400 naming the header an upgrade lacks or gets wrong, and what to send; aiohttp's
    own refusal reads ``Handshake error: None``."""
    def refused(message: str, header: str) -> web.Response:
        return error_response(400, "bad_handshake", message, header)

    if "websocket" not in request.headers.get("Upgrade", "").lower():
        return refused("this is the run's WebSocket stream: open it with a WebSocket client "
                       "(Upgrade: websocket); a page of its events over plain HTTP is GET "
                       "/api/runs/{id}/events", "Upgrade")
    if "upgrade" not in request.headers.get("Connection", "").lower():
        return refused("a WebSocket upgrade sends Connection: Upgrade", "Connection")
    key = request.headers.get("Sec-WebSocket-Key", "")
    try:
        whole = len(base64.b64decode(key, validate=True)) == 16
    except binascii.Error:
        whole = False
    if not whole:
        said = f"{key[:40]!r}" if key else "none"
        return refused(f"Sec-WebSocket-Key must be 16 random bytes in base64 (RFC 6455 4.1), "
                       f"24 characters; it was {said}", "Sec-WebSocket-Key")
    return None


async def stream(request: web.Request) -> web.WebSocketResponse:
    """``GET /api/runs/{id}/stream?after=SEQ``: see :mod:`desktop.api.stream`."""
    after = int_query(request, "after", 0, 0) or 0  # a bad query is said whatever else is
    refused = _other_version(request) or _bad_handshake(request)
    if refused is not None:
        return refused
    # No compression: on loopback it only costs time, and an uncompressed frame is written
    # whole at once, so cancelling a send never leaves half a frame before the close frame.
    # `timeout`: how long aiohttp's close waits for the client's answering close frame
    ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=MAX_CLIENT_FRAME,
                               timeout=request.app[LIMITS].close_timeout, compress=False)
    await ws.prepare(request)
    try:
        await _serve(request, ws, after)
    finally:
        # a client that stopped reading may keep what is left (the close frame last)
        # unwritten, and the connection open, for good: bounded (connections.py)
        protocol = request.protocol
        if isinstance(protocol, GuardedHandler):
            protocol.finish_within(request.app[LIMITS].drain_timeout)
    return ws


async def _serve(request: web.Request, ws: web.WebSocketResponse, after: int) -> None:
    service = request.app[SERVICE]
    run_id = request.match_info["run_id"]
    try:
        folder = service.run_dir(run_id)
    except ApiError as exc:
        await ws.close(code=CLOSE_UNKNOWN_RUN, message=exc.message.encode()[:120])
        return
    client = StreamClient(ws, request.app[QUEUE], request.app[LIMITS].close_timeout)
    leave = service.feeds.join(run_id, client)  # before the log is read: see stream.py
    pump = client.start(EventReader(folder), after, service.feeds.kept(run_id))
    try:
        await client.serve()
    finally:
        leave()
        pump.cancel()
        await asyncio.gather(pump, return_exceptions=True)
