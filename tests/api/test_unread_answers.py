"""A plain HTTP client that sends a request and never reads its answer can not hold its
connection, and its place under the connection cap, for good: once the answer's bytes have
waited Limits.write_timeout seconds with the client taking none of them, the connection is
aborted; a client that reads slowly but steadily gets every byte, and keeps its kept-alive
connection (desktop/api/write_watch.py). Real sockets, both sides' buffers made small so
that most of an answer waits in the service's transport."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import orjson
import pytest
from api_helpers import TOKEN, Api, guarded, served, small_buffer_socket, within, workflow

from desktop.api.connections import GuardedHandler, Limits

BOUND = 30.0
"""Longest wait for what the service is expected to do."""
QUICK = 0.3
"""The write bound where the test waits for an abort."""
STEADY = 1.0
"""The write bound where a slow reader must not be cut off: it reads every PAUSE s."""
PAUSE = 0.05
READ = 4096
"""Most bytes the slow reader takes at once."""
BUFFER = 4096
"""SO_RCVBUF of the client and SO_SNDBUF of the service's socket: the kernel holds a few
tens of KiB of an answer; the rest waits in the service's transport."""
SMALL, LARGE = 3_000, 20_000
"""Words of the run's one message: an events page of about 50 KiB (what is left in the
transport stays under its high-water mark: the answer finishes, its tail unread) and of
about 300 KiB (the answer's writer waits on the client)."""

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@contextlib.asynccontextmanager
async def service(tmp_path: Path, write_timeout: float) -> AsyncIterator[Api]:
    async with served(tmp_path, limits=Limits(write_timeout=write_timeout)) as api:
        yield api


async def until(predicate: Callable[[], bool], what: str) -> None:
    await within(BOUND, predicate, what)


async def finished_run(api: Api, words: int) -> str:
    run_id = (await api.start(workflow({"a": {"script": [{"say": "word " * words}]}})))["id"]
    await api.finished(run_id)
    return str(run_id)


@contextlib.asynccontextmanager
async def connection(api: Api) -> AsyncIterator[tuple[Streams, GuardedHandler]]:
    """A plain connection with small socket buffers on both sides, and the service's
    protocol object for it."""
    sock = await small_buffer_socket(api, BUFFER)
    reader, writer = await asyncio.open_connection(sock=sock, limit=BUFFER)
    try:
        mine = sock.getsockname()

        def handler_of_mine() -> GuardedHandler | None:
            return next((h for h in guarded(api).handlers if h.transport is not None
                         and h.transport.get_extra_info("peername") == mine), None)

        await until(lambda: handler_of_mine() is not None, "the service took the connection")
        handler = handler_of_mine()
        assert handler is not None and handler.transport is not None
        served = handler.transport.get_extra_info("socket")
        served.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BUFFER)
        yield (reader, writer), handler
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def ask_events(api: Api, writer: asyncio.StreamWriter, run_id: str) -> None:
    writer.write(f"GET /api/runs/{run_id}/events?limit=1000 HTTP/1.1\r\n"
                 f"Host: {api.client.host}:{api.client.port}\r\n"
                 f"Authorization: Bearer {TOKEN}\r\n\r\n".encode())


def buffered(handler: GuardedHandler) -> bool:
    """The service's transport holds bytes of the answer that the kernel would not take."""
    transport = handler.transport
    return transport is not None and transport.get_write_buffer_size() > 0


async def answer(reader: asyncio.StreamReader, pause: float) -> tuple[bytes, int]:
    """One whole answer (its head, then its body by Content-Length), read at most READ
    bytes at a time with ``pause`` s after each read; the body and how many reads it took."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
    assert head.startswith(b"HTTP/1.1 200"), head
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    body, reads = b"", 0
    while len(body) < length:
        chunk = await asyncio.wait_for(reader.read(min(READ, length - len(body))), BOUND)
        assert chunk, f"the service closed the connection after {len(body)} of {length} bytes"
        body += chunk
        reads += 1
        await asyncio.sleep(pause)
    return body, reads


@pytest.mark.parametrize("words", [SMALL, LARGE])
async def test_a_client_that_never_reads_its_answer_gives_its_place_back(
        tmp_path: Path, words: int, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="desktop.api.connections")
    async with service(tmp_path, QUICK) as api:
        run_id = await finished_run(api, words)
        server = guarded(api)
        async with connection(api) as ((_reader, writer), handler):
            held = server.open
            ask_events(api, writer, run_id)
            await until(lambda: buffered(handler), "the answer filled the socket buffers")
            # the client reads nothing and stays connected
            await until(lambda: handler not in server.handlers and server.open < held,
                        "the connection was cut off and gave its place back")
        assert any("took none of its answer" in r.getMessage() and r.levelno == logging.INFO
                   for r in caplog.records)
        await api.healthy()


async def test_a_client_that_reads_slowly_gets_every_byte_and_keeps_its_connection(
        tmp_path: Path) -> None:
    async with service(tmp_path, STEADY) as api:
        run_id = await finished_run(api, LARGE)
        expected = await api.json("GET", f"/api/runs/{run_id}/events?limit=1000", 200)
        async with connection(api) as ((reader, writer), handler):
            ask_events(api, writer, run_id)
            await until(lambda: buffered(handler), "the answer filled the socket buffers")
            body, reads = await answer(reader, PAUSE)
            # it read for longer than the bound, never pausing for long
            assert reads * PAUSE > 2 * STEADY
            assert orjson.loads(body) == expected
            ask_events(api, writer, run_id)  # the same connection, kept alive
            body, _ = await answer(reader, 0)
            assert orjson.loads(body) == expected
            assert handler in guarded(api).handlers
