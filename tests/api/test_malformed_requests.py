"""A request aiohttp's HTTP parser refuses, before any handler runs, is answered in the
service's JSON error shape like every other 4xx, and its connection is closed
(GuardedHandler.handle_error in desktop/api/connections.py)."""

from __future__ import annotations

import asyncio
import contextlib

import orjson
import pytest
from api_helpers import TOKEN, Api

BOUND = 10.0

HEAD = "Host: {host}\r\nAuthorization: Bearer " + TOKEN + "\r\n"
JSON_POST = "POST /api/runs HTTP/1.1\r\n" + HEAD + "Content-Type: application/json\r\n"
MALFORMED = {
    "header line too long": "GET /api/health HTTP/1.1\r\n" + HEAD + "X-Long: " + "a" * 9000
                            + "\r\n\r\n",
    "request line too long": "GET /api/health?x=" + "a" * 9000 + " HTTP/1.1\r\n" + HEAD
                             + "\r\n",
    "duplicated Host": "GET /api/health HTTP/1.1\r\n" + HEAD + "Host: x\r\n\r\n",
    "not a method": "G(T /api/health HTTP/1.1\r\n" + HEAD + "\r\n",
    "no such version": "GET /api/health HTTP/9.9\r\n" + HEAD + "\r\n",
    "a byte not allowed in a path": "GET /api/runs/\xff HTTP/1.1\r\n" + HEAD + "\r\n",
    "a header without a colon": "GET /api/health HTTP/1.1\r\n" + HEAD + "Broken\r\n\r\n",
    "a folded header": "GET /api/health HTTP/1.1\r\n" + HEAD + "X-A: a\r\n b\r\n\r\n",
    "a bad Content-Length": JSON_POST + "Content-Length: -1\r\n\r\n{}",
    "Content-Length with chunked": JSON_POST + "Content-Length: 2\r\n"
                                   "Transfer-Encoding: chunked\r\n\r\n{}",
    "a bad chunk size": JSON_POST + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    "not HTTP at all": "\x16\x03\x01 a TLS hello, say\r\n\r\n",
}


async def answer_to(api: Api, request: bytes) -> tuple[bytes, dict]:
    """The status line and the JSON body the service answers ``request`` with, checking
    that it closes the connection after it."""
    reader, writer = await asyncio.open_connection(api.client.host, api.client.port)
    try:
        writer.write(request)
        received = b""

        async def until_closed() -> None:
            nonlocal received
            with contextlib.suppress(ConnectionResetError):
                while chunk := await reader.read(65536):
                    received += chunk

        await asyncio.wait_for(until_closed(), BOUND)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    head, _, body = received.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower(), received[:400]
    return head.split(b"\r\n")[0], orjson.loads(body)


@pytest.mark.parametrize("name", MALFORMED)
async def test_a_request_the_parser_refuses_gets_the_json_error_shape(
        api: Api, name: str) -> None:
    request = MALFORMED[name].replace("{host}", f"{api.client.host}:{api.client.port}")
    status, body = await answer_to(api, request.encode("latin-1"))
    assert b" 400 " in status, status
    assert set(body) == {"error"}
    error = body["error"]
    assert error["code"] == "bad_request"
    assert error["message"].startswith("the request is not well-formed HTTP and was not read: ")
    assert error["message"].isascii() and len(error["message"]) < 300
    await api.healthy()


@pytest.mark.parametrize("name", ["header line too long", "request line too long",
                                  "too many headers"])
async def test_a_request_too_large_to_read_says_which_limit_and_the_fix(
        api: Api, name: str) -> None:
    """Not the parser's own words, which repeat the first 100 bytes of the line."""
    many = "".join(f"X-H{i}: b\r\n" for i in range(200))
    request = {**MALFORMED, "too many headers": "GET /api/health HTTP/1.1\r\n" + HEAD + many
               + "\r\n"}[name].replace("{host}", f"{api.client.host}:{api.client.port}")
    status, body = await answer_to(api, request.encode("latin-1"))
    assert b" 400 " in status, status
    message = body["error"]["message"]
    assert "aaaa" not in message and "bytearray" not in message
    assert ("over 8,190 bytes" in message and "JSON body" in message) \
        if name != "too many headers" else "more headers than the service reads" in message
    await api.healthy()


@pytest.mark.parametrize("encoding", ["br", "zstd"])
async def test_a_content_encoding_the_service_can_not_decode_is_named(
        api: Api, encoding: str) -> None:
    request = JSON_POST + f"Content-Encoding: {encoding}\r\nContent-Length: 2\r\n\r\n{{}}"
    status, body = await answer_to(
        api, request.replace("{host}", f"{api.client.host}:{api.client.port}").encode())
    assert b" 400 " in status, status
    error = body["error"]
    assert (error["code"], error["field"]) == ("unsupported_content_encoding",
                                               "Content-Encoding")
    assert "install" not in error["message"]  # not the parser's advice to its own admin
    assert api.service.hosted == {}


_HANDSHAKE = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
              "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}


@pytest.mark.parametrize(("header", "value", "said"), [
    ("Sec-WebSocket-Key", None, "it was none"),
    ("Sec-WebSocket-Key", "short", "it was 'short'"),
    ("Sec-WebSocket-Key", "not base64 at all!!!!!!!", "16 random bytes in base64"),
    ("Connection", "keep-alive", "Connection: Upgrade"),
    ("Upgrade", None, "GET /api/runs/{id}/events"),
])
async def test_a_refused_websocket_handshake_names_the_header_and_what_to_send(
        api: Api, header: str, value: str | None, said: str) -> None:
    headers = {k: v for k, v in _HANDSHAKE.items() if k != header}
    if value is not None:
        headers[header] = value
    response = await api.client.get("/api/runs/x/stream", headers=headers)
    assert response.status == 400
    error = (await response.json())["error"]
    assert (error["code"], error["field"]) == ("bad_handshake", header)
    assert said in error["message"] and "None" not in error["message"]


@pytest.mark.parametrize(("authority", "status", "code"), [
    ("evil.test", b" 403 ", "host_not_allowed"), ("evil.test:80", b" 403 ", "host_not_allowed"),
    ("{host}", b" 200 ", None)])
async def test_an_absolute_form_target_is_judged_by_its_own_authority(
        api: Api, authority: str, status: bytes, code: str | None) -> None:
    """RFC 9112 3.2.2: a target in absolute form names the host; the Host header does not."""
    here = f"{api.client.host}:{api.client.port}"
    request = (f"GET http://{authority}/api/health HTTP/1.1\r\n" + HEAD
               + "Connection: close\r\n\r\n").replace("{host}", here)
    answer, body = await answer_to(api, request.encode())
    assert status in answer, answer
    if code is not None:
        assert body["error"]["code"] == code and "evil.test" in body["error"]["message"]
