"""What every request passes before a handler sees it, and what every error looks like.

- ``Host`` must name this server (loopback names or the ``--host`` value, with the
  port the connection came in on): a page that rebinds its own DNS name to
  127.0.0.1 can not talk to the service (403).
- ``Origin``, when sent (browsers do), must be the server's own origin; a
  foreign one or ``null`` is refused (403).
- ``Authorization: Bearer <token>``; only a well-formed WebSocket upgrade of the event
  stream may pass ``?token=`` instead, as browsers can not set headers on it (401
  otherwise).
- A body announced above :data:`~desktop.contract.api.MAX_BODY_BYTES` is refused
  before it is read (413); one that grows past it while read is cut off (413). A body
  is read whole before the handler runs, within ``body_timeout`` seconds, or the
  answer is 408 (:mod:`desktop.api.connections` bounds the rest of a slow client).
- Every error is JSON ``{"error": {"code", "message", "field"?}}``. An
  unexpected exception is logged with its traceback and answered with a 500
  that carries none.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Awaitable, Callable, Iterable

from aiohttp import web

from desktop.api.api_error import ApiError
from desktop.api.connections import BODY_TIMEOUT, read_body
from desktop.api.errors import answer, error_response, internal_error
from desktop.contract.api import MAX_BODY_BYTES

log = logging.getLogger(__name__)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed",
          413: "body_too_large", 415: "unsupported_media_type"}


def host_names(host: str) -> tuple[str, ...]:
    """The names a request's Host header may use for a server bound to ``host``."""
    extra = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = list(LOOPBACK_NAMES)
    if extra not in names and extra not in ("0.0.0.0", "[::]"):
        names.append(extra)
    return tuple(names)


def local_port(request: web.Request) -> int | None:
    """The port the request's connection arrived on."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    if isinstance(sockname, tuple) and len(sockname) >= 2:
        return int(sockname[1])
    return None


def _too_large(length: int | None) -> str:
    size = f"the body ({length / 2**20:.1f} MiB)" if length is not None else "the body"
    return (f"{size} is larger than the {MAX_BODY_BYTES >> 20} MiB the service reads; send "
            "less (a workflow saved in an allowed folder can be sent as workflowPath)")


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn every failure into the JSON error shape; never show a traceback."""
    try:
        return await handler(request)
    except ApiError as exc:
        return answer(exc)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        if exc.status == 413:
            return error_response(413, "body_too_large", _too_large(None))
        response = error_response(exc.status, _CODES.get(exc.status, "http_error"),
                                  _said(exc))
        if "Allow" in exc.headers:  # RFC 9110: a 405 names the methods the resource takes
            response.headers["Allow"] = exc.headers["Allow"]
        return response
    except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
        raise
    except Exception:
        log.exception("unexpected error answering %s %s", request.method, request.path)
        return internal_error()


def _said(exc: web.HTTPException) -> str:
    """What aiohttp said about the refusal: its text when it gave one (a WebSocket
    handshake names what is wrong with it), else the reason phrase."""
    default = f"{exc.status}: {exc.reason}"
    text = (exc.text or "").strip()
    return text if text and text != default else exc.reason or "request refused"


def guard(token: str, names: Iterable[str], body_timeout: float = BODY_TIMEOUT
          ) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The middleware checking Host, Origin, the token and the announced body size, and
    reading the body within ``body_timeout`` seconds."""
    token_bytes = token.encode()
    names = tuple(names)

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        port = local_port(request)
        allowed = {f"{name}:{port}" for name in names}
        host = request.headers.get("Host", "")
        if request.url.is_absolute() and request.raw_path[:1] != "/":
            # an absolute-form target (``GET http://evil.test/api/health``): RFC 9112
            # 3.2.2 has its authority take the Host header's place
            host = request.url.raw_authority
        if host.lower() not in allowed:
            raise ApiError(403, "host_not_allowed",
                           f"Host {host!r} is not this server; use one of "
                           f"{', '.join(sorted(allowed))}")
        origin = request.headers.get("Origin")
        if origin is not None and origin.lower() not in {f"http://{a}" for a in allowed}:
            raise ApiError(403, "origin_not_allowed",
                           f"Origin {origin!r} may not use this service; only its own origin "
                           "(or a client sending no Origin) may")
        # RFC 9110 11.1: the scheme is case-insensitive, and one or more spaces follow it
        scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
        ok = scheme.lower() == "bearer" and hmac.compare_digest(
            credentials.strip(" ").encode("utf-8", "replace"), token_bytes)
        if not ok and _is_websocket(request):
            ok = hmac.compare_digest(request.query.get("token", "").encode("utf-8", "replace"),
                                     token_bytes)
        if not ok:
            raise ApiError(401, "unauthorized",
                           "missing or wrong token: send `Authorization: Bearer <token>` with "
                           "the token from server.json in the data folder")
        length = request.content_length
        if length is not None and length > MAX_BODY_BYTES:
            response = error_response(413, "body_too_large", _too_large(length))
            response.force_close()  # do not read the rest of it
            return response
        late = await read_body(request, body_timeout)
        if late is not None:
            return late
        return await handler(request)

    return check


STREAM_ROUTE = "/api/runs/{run_id}/stream"
"""The one route that takes ``?token=``: browsers cannot set headers on a WebSocket."""


def _is_websocket(request: web.Request) -> bool:
    """A well-formed WebSocket upgrade (RFC 6455 4.1) of the event stream's route."""
    headers = request.headers
    resource = request.match_info.route.resource
    return (request.method == "GET" and resource is not None
            and resource.canonical == STREAM_ROUTE
            and headers.get("Upgrade", "").lower() == "websocket"
            and "upgrade" in {p.strip().lower() for p in headers.get("Connection", "").split(",")}
            and headers.get("Sec-WebSocket-Version") == "13"
            and bool(headers.get("Sec-WebSocket-Key")))
