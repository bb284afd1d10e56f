"""Connections that never send a request cannot lock token holders out: at the cap, the
oldest one still waiting for its request head makes room for a new client (and a
kept-alive connection that has been answered keeps its place while there is one)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from api_helpers import TOKEN, Api, guarded, served, within

from desktop.api.connections import Limits

BOUND = 10.0
FLOOD = 300
"""Bare sockets per wave of the flood, as many as the report that found the lockout."""
Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@contextlib.asynccontextmanager
async def connections() -> AsyncIterator[list[Streams]]:
    """Raw connections the block opens into the list; all closed on the way out."""
    held: list[Streams] = []
    try:
        yield held
    finally:
        for _, writer in held:
            writer.close()
        for _, writer in held:
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


async def connect(api: Api, held: list[Streams]) -> Streams:
    streams = await asyncio.open_connection(api.client.host, api.client.port)
    held.append(streams)
    return streams


def health_request(api: Api) -> bytes:
    return (f"GET /api/health HTTP/1.1\r\nHost: {api.client.host}:{api.client.port}\r\n"
            f"Authorization: Bearer {TOKEN}\r\n\r\n").encode()


async def answer_status(api: Api, streams: Streams) -> bytes:
    """Send an authenticated health check; the status line of its answer."""
    reader, writer = streams
    writer.write(health_request(api))
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    await asyncio.wait_for(reader.readexactly(length), BOUND)
    return head.split(b"\r\n", 1)[0]


async def closed_by_peer(reader: asyncio.StreamReader) -> bytes:
    received = b""

    async def drain() -> None:
        nonlocal received
        with contextlib.suppress(ConnectionResetError):
            while chunk := await reader.read(65536):
                received += chunk

    await asyncio.wait_for(drain(), BOUND)
    return received


async def test_silent_connections_at_the_cap_make_room_for_a_new_client(tmp_path) -> None:
    cap = 4
    async with served(tmp_path, limits=Limits(max_connections=cap)) as api, \
            connections() as held:
        server = guarded(api)
        silent = [await connect(api, held) for _ in range(cap)]
        await within(BOUND, lambda: server.open == cap, "the silent ones hold every place")
        client = await connect(api, held)
        assert await answer_status(api, client) == b"HTTP/1.1 200 OK"
        oldest_reader = silent[0][0]
        assert (await closed_by_peer(oldest_reader)).startswith(b"HTTP/1.1 503")
        assert server.open == cap


async def test_an_answered_kept_alive_client_outlasts_silent_ones(tmp_path) -> None:
    cap = 3
    async with served(tmp_path, limits=Limits(max_connections=cap)) as api, \
            connections() as held:
        server = guarded(api)
        kept = await connect(api, held)
        assert await answer_status(api, kept) == b"HTTP/1.1 200 OK"  # idle now
        silent = [await connect(api, held) for _ in range(cap - 1)]
        await within(BOUND, lambda: server.open == cap, "every place is held")
        more = [await connect(api, held) for _ in range(cap)]  # each pushes out a silent one
        for reader, _ in silent:
            assert (await closed_by_peer(reader)).startswith(b"HTTP/1.1 503")
        await within(BOUND, lambda: server.open == cap, "every place is held again")
        assert await answer_status(api, kept) == b"HTTP/1.1 200 OK"
        assert len(more) == cap


async def test_a_flood_of_bare_sockets_never_locks_out_health_checks(tmp_path) -> None:
    """Bare sockets opened over and over while authenticated clients check health: each
    check is answered 200 (before the fix, most were 503 until the head timeout)."""
    cap = 32
    async with served(tmp_path, limits=Limits(max_connections=cap)) as api:
        stop = asyncio.Event()
        opened = 0

        async def open_bare_sockets() -> None:
            nonlocal opened
            while not stop.is_set():
                async with connections() as wave:  # a wave of silent sockets, then again
                    for _ in range(FLOOD):
                        if stop.is_set():
                            break
                        await connect(api, wave)
                        opened += 1

        flooding = asyncio.create_task(open_bare_sockets())
        try:
            await within(BOUND, lambda: opened >= cap * 2, "the flood filled the cap")
            statuses = []
            for _ in range(40):
                async with connections() as mine:
                    statuses.append(await answer_status(api, await connect(api, mine)))
            assert statuses == [b"HTTP/1.1 200 OK"] * 40
        finally:
            stop.set()
            await flooding
        await api.healthy()
