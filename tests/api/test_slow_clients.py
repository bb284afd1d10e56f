"""Slow and many clients, over real sockets: a trickled request head is cut off, a trickled
body gets 408, connections over the cap are refused while the service keeps serving, and an
unmasked client WebSocket frame is closed with 1002 (desktop/api/connections.py)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import struct
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import orjson
import pytest
from api_helpers import TOKEN, Api, served, workflow

from desktop.api.connections import GuardedServer, Limits, MaskedFramesOnly

BOUND = 10.0
"""Longest wait for anything the service is expected to do (the limits below are 0.3 s)."""

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@contextlib.asynccontextmanager
async def limited(tmp_path: Path, limits: Limits) -> AsyncIterator[Api]:
    async with served(tmp_path, limits=limits) as api:
        yield api


@pytest.fixture
async def quick(tmp_path: Path) -> AsyncIterator[Api]:
    """A service giving a request head and a body 0.3 s each."""
    async with limited(tmp_path, Limits(head_timeout=0.3, body_timeout=0.3)) as api:
        yield api


@contextlib.asynccontextmanager
async def raw(api: Api) -> AsyncIterator[Streams]:
    """A plain TCP connection to the service, closed on the way out."""
    reader, writer = await asyncio.open_connection(api.client.host, api.client.port)
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def host(api: Api) -> str:
    return f"{api.client.host}:{api.client.port}"


async def closed_by_peer(reader: asyncio.StreamReader) -> bytes:
    """Everything the service sends until it closes the connection (bounded wait)."""
    received = b""

    async def drain() -> None:
        nonlocal received
        with contextlib.suppress(ConnectionResetError):
            while chunk := await reader.read(65536):
                received += chunk

    await asyncio.wait_for(drain(), BOUND)
    return received


@contextlib.asynccontextmanager
async def trickling(writer: asyncio.StreamWriter, data: bytes,
                    every: float = 0.02) -> AsyncIterator[None]:
    """Sends ``data`` a byte at a time in the background, until the block ends."""
    async def drip() -> None:
        with contextlib.suppress(ConnectionError):
            for i in range(len(data)):
                writer.write(data[i:i + 1])
                await writer.drain()
                await asyncio.sleep(every)

    task = asyncio.create_task(drip())
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def until(predicate: Callable[[], bool]) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(poll(), BOUND)


# --- request head and body ------------------------------------------------------------


async def test_a_request_head_trickled_past_the_deadline_is_closed(quick: Api) -> None:
    async with raw(quick) as (reader, writer):
        writer.write(f"GET /api/health HTTP/1.1\r\nHost: {host(quick)}\r\n".encode())
        # ~20 s of header bytes at the pace of the probe's slowloris connections
        async with trickling(writer, b"X-Slow: " + b"a" * 1000):
            received = await closed_by_peer(reader)
    assert received == b""  # closed without an answer: no complete request to answer
    await quick.healthy()


async def test_a_silent_connection_is_closed_after_the_head_deadline(quick: Api) -> None:
    async with raw(quick) as (reader, _writer):
        assert await closed_by_peer(reader) == b""


async def test_a_kept_alive_connection_outlives_the_head_deadline(quick: Api) -> None:
    """Between requests the keep-alive timeout applies, not the head deadline."""
    request = (f"GET /api/health HTTP/1.1\r\nHost: {host(quick)}\r\n"
               f"Authorization: Bearer {TOKEN}\r\n\r\n").encode()
    async with raw(quick) as (reader, writer):
        for _ in range(2):
            writer.write(request)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
            assert head.startswith(b"HTTP/1.1 200"), head
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            await asyncio.wait_for(reader.readexactly(length), BOUND)
            await asyncio.sleep(0.6)  # twice the head deadline, idle between requests
        assert not reader.at_eof()


async def test_a_body_trickled_past_the_deadline_is_a_408(quick: Api) -> None:
    body = orjson.dumps({"workflow": workflow({"a": {"script": [{"say": "hi"}]}})})
    head = (f"POST /api/runs HTTP/1.1\r\nHost: {host(quick)}\r\n"
            f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    async with raw(quick) as (reader, writer):
        writer.write(head + body[:10])
        async with trickling(writer, body[10:]):
            answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
            assert answer.startswith(b"HTTP/1.1 408"), answer
            assert b"connection: close" in answer.lower()
            length = int(answer.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            error = orjson.loads(await asyncio.wait_for(reader.readexactly(length), BOUND))
    assert error["error"]["code"] == "body_timeout"
    assert quick.service.hosted == {}  # no run was started from half a body
    await quick.healthy()


# --- the connection cap ---------------------------------------------------------------


async def test_connections_over_the_cap_are_refused_and_the_service_keeps_serving(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cap = 4
    caplog.set_level(logging.WARNING)
    async with limited(tmp_path, Limits(max_connections=cap)) as api, \
            contextlib.AsyncExitStack() as stack:
        assert api.client.server.runner is not None
        server = api.client.server.runner.server
        assert isinstance(server, GuardedServer)
        held = [await stack.enter_async_context(raw(api)) for _ in range(cap)]
        for _, writer in held:  # each a token holder's request under way: its body to come
            writer.write(f"POST /api/runs HTTP/1.1\r\nHost: {host(api)}\r\n"
                         f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json"
                         "\r\nContent-Length: 100\r\n\r\n".encode())
        await until(lambda: server.open == cap and not any(
            h.awaiting_head or h.idle for h in server.handlers))
        for _ in range(3):  # over the cap: answered at once and closed
            async with raw(api) as (reader, writer):
                writer.write(f"GET /api/health HTTP/1.1\r\nHost: {host(api)}\r\n"
                             f"Authorization: Bearer {TOKEN}\r\n\r\n".encode())
                refused = await closed_by_peer(reader)
            assert refused.startswith(b"HTTP/1.1 503"), refused
            error = orjson.loads(refused.split(b"\r\n\r\n", 1)[1])
            assert error["error"]["code"] == "too_many_connections"
        assert server.open == cap
        _, writer = held[0]
        writer.close()  # one slot free again: a normal client is served
        await until(lambda: server.open < cap)
        await api.healthy()
    lines = [r for r in caplog.records if r.name == "desktop.api.connections"]
    assert len(lines) == 1, lines  # three refusals, one line
    assert lines[0].levelno == logging.WARNING and lines[0].exc_info is None
    assert "\n" not in lines[0].getMessage()
    assert "Traceback" not in caplog.text


async def get_health(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     api: Api) -> None:
    """One kept-alive request and its whole answer on a raw connection."""
    writer.write(f"GET /api/health HTTP/1.1\r\nHost: {host(api)}\r\n"
                 f"Authorization: Bearer {TOKEN}\r\n\r\n".encode())
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
    assert head.startswith(b"HTTP/1.1 200"), head
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    await asyncio.wait_for(reader.readexactly(length), BOUND)


async def test_at_the_cap_an_idle_kept_alive_connection_makes_room(tmp_path: Path) -> None:
    """Idle kept-alive connections (aiohttp keeps them an hour) can not hold every place:
    the oldest one is closed for a new client."""
    async with limited(tmp_path, Limits(max_connections=2)) as api, \
            raw(api) as (old_reader, old_writer), raw(api) as (reader, writer):
        await get_health(old_reader, old_writer, api)
        await get_health(reader, writer, api)  # both idle now, the cap reached
        async with raw(api) as (new_reader, new_writer):
            await get_health(new_reader, new_writer, api)  # served, not refused
        assert await closed_by_peer(old_reader) == b""  # the oldest idle one made room
        await get_health(reader, writer, api)  # the other is still open


# --- WebSocket masks ------------------------------------------------------------------


def client_frame(opcode: int, payload: bytes, masked: bool = True) -> bytes:
    """One final WebSocket frame as a client sends it (RFC 6455 5.2)."""
    size = len(payload)
    bit = 0x80 if masked else 0
    if size < 126:
        head = bytes([0x80 | opcode, bit | size])
    elif size < 1 << 16:
        head = bytes([0x80 | opcode, bit | 126]) + struct.pack("!H", size)
    else:
        head = bytes([0x80 | opcode, bit | 127]) + struct.pack("!Q", size)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


async def server_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next frame the service sends: (opcode, payload)."""
    first, second = await asyncio.wait_for(reader.readexactly(2), BOUND)
    assert not second & 0x80, "a server frame must not be masked"
    size = second & 0x7F
    if size == 126:
        size = struct.unpack("!H", await reader.readexactly(2))[0]
    elif size == 127:
        size = struct.unpack("!Q", await reader.readexactly(8))[0]
    return first & 0x0F, await asyncio.wait_for(reader.readexactly(size), BOUND)


async def next_of(reader: asyncio.StreamReader, opcode: int) -> bytes:
    """The payload of the next frame with ``opcode`` (event frames before it are skipped)."""
    while True:
        got, payload = await server_frame(reader)
        if got == opcode:
            return payload


async def send_in_pieces(writer: asyncio.StreamWriter, data: bytes) -> None:
    """``data`` with its first 15 bytes (any header) one write each, then the rest but one
    byte, then the last byte: each write its own TCP segment (NODELAY, and a pause)."""
    cuts = sorted({*range(min(15, len(data))), max(len(data) - 1, 0), len(data)})
    for start, end in itertools.pairwise(cuts):
        writer.write(data[start:end])
        await writer.drain()
        await asyncio.sleep(0.005)


@contextlib.asynccontextmanager
async def stream(api: Api) -> AsyncIterator[Streams]:
    """A raw WebSocket connection to a finished run's event stream."""
    run_id = (await api.start(workflow({"a": {"script": [{"say": "hi"}]}})))["id"]
    await api.finished(run_id)
    async with raw(api) as (reader, writer):
        writer.write(f"GET /api/runs/{run_id}/stream?after=0 HTTP/1.1\r\n"
                     f"Host: {host(api)}\r\nAuthorization: Bearer {TOKEN}\r\n"
                     "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
        assert head.startswith(b"HTTP/1.1 101"), head
        yield reader, writer


async def assert_closed_with_1002(reader: asyncio.StreamReader) -> None:
    payload = await next_of(reader, 0x8)
    assert struct.unpack("!H", payload[:2])[0] == 1002, payload
    assert await closed_by_peer(reader) == b""


async def test_an_unmasked_client_frame_is_closed_with_1002(api: Api) -> None:
    async with stream(api) as (reader, writer):
        writer.write(client_frame(0x1, b"hello", masked=False))
        await assert_closed_with_1002(reader)
    await api.healthy()


async def test_masked_frames_split_anywhere_pass_and_a_split_unmasked_one_is_refused(
        api: Api) -> None:
    async with stream(api) as (reader, writer):
        # masked frames with a 7-bit and a 16-bit length (a 64-bit one would be over the
        # stream's 64 KiB client frame limit; the test below has it), cut into pieces
        for size in (5, 300, 60_000):
            await send_in_pieces(writer, client_frame(0x2, os.urandom(size)))
        # a masked ping after them is answered: frame boundaries were followed exactly
        await send_in_pieces(writer, client_frame(0x9, b"still here"))
        assert await next_of(reader, 0xA) == b"still here"
        # its first byte alone, then its second (the mask bit): refused there; the rest is
        # not sent, as writing to the closed connection would hide the close frame
        await send_in_pieces(writer, client_frame(0x1, b"hello", masked=False)[:2])
        await assert_closed_with_1002(reader)


def test_the_mask_check_follows_frames_across_every_split() -> None:
    frames = [client_frame(0x1, b"a" * 3), client_frame(0x2, b"b" * 200),
              client_frame(0x2, b"c" * 70_000), client_frame(0x9, b"")]
    stream_bytes = b"".join(frames)
    bad = client_frame(0x1, b"x", masked=False)

    class Inner:
        def __init__(self) -> None:
            self.fed = b""

        def feed_data(self, data: bytes) -> tuple[bool, bytes]:
            self.fed += data
            return False, b""

        def feed_eof(self) -> None:
            pass

    # every cut through the first three frames' headers and payloads, and near the end
    for cut in [*range(240), *range(len(stream_bytes) - 20, len(stream_bytes) + 1)]:
        inner, refused = Inner(), []
        check = MaskedFramesOnly(inner, lambda r=refused: r.append(True))
        for part in (stream_bytes[:cut], stream_bytes[cut:], bad[:1]):
            assert check.feed_data(part) == (False, b"")
        # the bad frame's first byte passed: its mask bit is in the second
        assert inner.fed == stream_bytes + bad[:1] and not refused, cut
        assert check.feed_data(bad[1:]) == (True, b"")
        assert refused == [True] and inner.fed == stream_bytes + bad[:1]
        assert check.feed_data(client_frame(0x1, b"more")) == (True, b"")  # nothing more
        assert refused == [True]



async def test_the_openapi_document_states_408_503_and_1002(api: Api) -> None:
    doc = await api.json("GET", "/api/openapi.json", 200)
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            statuses = set(operation["responses"])
            assert "503" in statuses, (method, path)
            assert ("408" in statuses) == ("requestBody" in operation), (method, path)
    assert "1002" in doc["paths"]["/api/runs/{runId}/stream"]["get"]["description"]


async def test_a_client_that_leaves_halfway_through_its_body_is_no_error(
        api: Api, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    head = (f"POST /api/runs HTTP/1.1\r\nHost: {host(api)}\r\n"
            f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
            "Content-Length: 100\r\n\r\n").encode()
    async with raw(api) as (_reader, writer):
        writer.write(head + b'{"wor')
        await writer.drain()

    async def noted() -> None:
        while "before its body arrived" not in caplog.text:
            await asyncio.sleep(0.02)

    await asyncio.wait_for(noted(), BOUND)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert api.service.hosted == {}
    await api.healthy()
