"""A stream client that stops reading can not hold its connection, and its place under the
connection cap, for good: once its stream has ended, what is left for it (the close frame
last) has Limits.drain_timeout seconds to be written out, then the connection is aborted;
a slow client that reads in time still gets its 4008 close frame (desktop/api/connections.py,
GuardedHandler.finish_within). Real sockets, the client's receive buffer made small."""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from api_helpers import (
    GATED,
    QUICK_CLOSE,
    TOKEN,
    Api,
    guarded,
    served,
    small_buffer_socket,
    within,
    workflow,
)

from desktop.api.connections import GuardedHandler, Limits
from desktop.api.stream import CLOSE_TOO_SLOW

BOUND = 60.0
"""Longest wait for what the service is expected to do (a loaded machine's burst of
events included)."""
QUICK = 0.3
"""The drain bound where the test waits for an abort."""
RECEIVE_BUFFER = 4096
BURST = 20_000
"""Events of a burst: a few MiB, well past what the socket buffers of both sides hold."""

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@contextlib.asynccontextmanager
async def service(tmp_path: Path, drain_timeout: float, write_timeout: float = BOUND
                  ) -> AsyncIterator[Api]:
    # a queue of a few hundred events: a live client that stopped reading is too slow soon
    limits = Limits(drain_timeout=drain_timeout, write_timeout=write_timeout,
                    close_timeout=QUICK_CLOSE)
    async with served(tmp_path, queue_limit=300, limits=limits) as api:
        yield api


async def until(predicate: Callable[[], bool], what: str) -> None:
    await within(BOUND, predicate, what)


@contextlib.asynccontextmanager
async def stream(api: Api, run_id: str) -> AsyncIterator[tuple[Streams, GuardedHandler]]:
    """A raw WebSocket connection to the run's stream, with a small receive buffer, and
    the service's protocol object for it."""
    sock = await small_buffer_socket(api, RECEIVE_BUFFER)
    reader, writer = await asyncio.open_connection(sock=sock, limit=RECEIVE_BUFFER)
    try:
        writer.write(f"GET /api/runs/{run_id}/stream?after=0 HTTP/1.1\r\n"
                     f"Host: {api.client.host}:{api.client.port}\r\n"
                     f"Authorization: Bearer {TOKEN}\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
        assert head.startswith(b"HTTP/1.1 101"), head
        mine = sock.getsockname()
        handler = next(h for h in guarded(api).handlers
                       if h.transport is not None
                       and h.transport.get_extra_info("peername") == mine)
        yield (reader, writer), handler
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next frame the service sends: (opcode, payload)."""
    first, second = await asyncio.wait_for(reader.readexactly(2), BOUND)
    size = second & 0x7F
    if size == 126:
        size = struct.unpack("!H", await reader.readexactly(2))[0]
    elif size == 127:
        size = struct.unpack("!Q", await reader.readexactly(8))[0]
    return first & 0x0F, await asyncio.wait_for(reader.readexactly(size), BOUND)


def stuck(handler: GuardedHandler) -> bool:
    """The service holds bytes for the client that its socket can not take."""
    transport = handler.transport
    return transport is not None and transport.get_write_buffer_size() > 0


async def burst_to_a_live_client(api: Api, reader: asyncio.StreamReader,
                                 run_id: str) -> None:
    """Read the stream until it is live at the run's approval, then approve it: the run
    sends a burst the client does not read."""
    while True:
        opcode, payload = await frame(reader)
        assert opcode == 0x1, (opcode, payload)
        if any(e["type"] == "approval.requested" for e in orjson.loads(payload)):
            break
    approval = next(iter((await api.run_state(run_id))["pendingApprovals"]))
    await api.json("POST", f"/api/approvals/{approval}/resolve", 200, {"status": "approved"})


def gated_burst() -> dict[str, Any]:
    return workflow({"a": {"script": [{"shell": "true"}, {"deltas": BURST}],
                           "permissions": GATED}})


async def test_a_client_that_stops_reading_and_half_closes_is_cut_off(
        tmp_path: Path) -> None:
    async with service(tmp_path, QUICK) as api:
        run_id = (await api.start(workflow({"a": {"script": [{"deltas": BURST}]}})))["id"]
        await api.finished(run_id)
        async with stream(api, run_id) as ((_reader, writer), handler):
            await until(lambda: stuck(handler), "the catch-up filled the socket buffers")
            writer.write_eof()  # gone: the service's side is in CLOSE-WAIT
            await until(lambda: handler not in guarded(api).handlers,
                        "the connection was given up")
            await until(lambda: api.service.feeds.count(run_id) == 0,
                        "the stream left its run's feed")
        await api.healthy()


@pytest.mark.timeout(240)
async def test_a_client_closed_as_too_slow_that_never_reads_is_cut_off(
        tmp_path: Path) -> None:
    async with service(tmp_path, QUICK) as api:
        run_id = (await api.start(gated_burst()))["id"]
        await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
        async with stream(api, run_id) as ((reader, _writer), handler):
            await burst_to_a_live_client(api, reader, run_id)
            # 4008, its close frame behind a full buffer (QUICK_CLOSE s at most), then
            # QUICK s to write it out: the client reads nothing and stays connected
            await until(lambda: handler not in guarded(api).handlers,
                        "the connection was given up")
        await api.healthy()


@pytest.mark.timeout(240)
async def test_a_slow_client_that_reads_in_time_gets_its_4008_close_frame(
        tmp_path: Path) -> None:
    # the bound on HTTP answers a client does not read is not a stream's: this client's
    # buffers stay full for far longer than QUICK s
    async with service(tmp_path, BOUND, write_timeout=QUICK) as api:
        run_id = (await api.start(gated_burst()))["id"]
        await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
        async with stream(api, run_id) as ((reader, _writer), handler):
            await burst_to_a_live_client(api, reader, run_id)
            # the stream has ended (dropped as too slow), its close frame still buffered
            await until(lambda: api.service.feeds.count(run_id) == 0, "the stream ended")
            assert stuck(handler)
            last = 0
            while True:  # now it reads: every frame, then the close frame
                opcode, payload = await frame(reader)
                if opcode != 0x1:
                    break
                last = orjson.loads(payload)[-1]["seq"]
        assert opcode == 0x8
        assert struct.unpack("!H", payload[:2])[0] == CLOSE_TOO_SLOW
        assert payload[2:].decode().endswith(f"reconnect with after={last}")  # no gap
        await api.healthy()
