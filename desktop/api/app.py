"""The aiohttp application of the local service: middlewares, routes, the event stream."""

from __future__ import annotations

import asyncio

from aiohttp import WSCloseCode, web

from desktop.api.api_error import ApiError
from desktop.api.connections import LIMITS, Limits
from desktop.api.engine_loop import SAME_LOOP, Runs
from desktop.api.routes import ENGINES, ROUTES, SERVICE, int_query
from desktop.api.runs import RunService
from desktop.api.security import STREAM_ROUTE, guard, host_names, json_errors
from desktop.api.stream import CLOSE_UNKNOWN_RUN, QUEUE_LIMIT, StreamClient
from desktop.contract.api import MAX_BODY_BYTES
from desktop.views.reader import EventReader

STREAM_PATH = STREAM_ROUTE
QUEUE: web.AppKey[int] = web.AppKey("queue_limit", int)
MAX_CLIENT_FRAME = 64 * 1024


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


async def stream(request: web.Request) -> web.WebSocketResponse:
    """``GET /api/runs/{id}/stream?after=SEQ``: see :mod:`desktop.api.stream`."""
    service = request.app[SERVICE]
    after = int_query(request, "after", 0, 0) or 0
    # No compression: on loopback it only costs time, and an uncompressed frame is written
    # whole at once, so cancelling a send never leaves half a frame before the close frame.
    ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=MAX_CLIENT_FRAME, timeout=5.0,
                               compress=False)
    await ws.prepare(request)
    run_id = request.match_info["run_id"]
    try:
        folder = service.run_dir(run_id)
    except ApiError as exc:
        await ws.close(code=CLOSE_UNKNOWN_RUN, message=exc.message.encode()[:120])
        return ws
    client = StreamClient(ws, request.app[QUEUE])
    leave = service.feeds.join(run_id, client)  # before the log is read: see stream.py
    pump = client.start(EventReader(folder), after, service.feeds.kept(run_id))
    try:
        await client.serve()
    finally:
        leave()
        pump.cancel()
        await asyncio.gather(pump, return_exceptions=True)
    return ws
