"""Malformed requests cost the service's log one short line each, a few a minute at most:
no traceback, nothing of the request beyond a short escaped excerpt, and a count of the
ones left out."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

from aiohttp.http_exceptions import BadHttpMessage
from hypothesis import given
from hypothesis import strategies as st
from service_process import ServeProcess

from desktop.api.log_guard import MalformedRequests

MALFORMED = (b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nHost: x\r\n\r\n",
             b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX: a\x00b\r\n\r\n",
             b"\x16\x03\x01 not http at all %d\r\n\r\n")


def record(exc: BaseException | None, msg: str = "Error handling request") -> logging.LogRecord:
    info = (type(exc), exc, None) if exc is not None else None
    return logging.LogRecord("aiohttp.server", logging.ERROR, __file__, 1, msg, (), info)


def test_the_service_logs_a_flood_of_malformed_requests_in_a_few_short_lines(
        tmp_path: Path) -> None:
    service = ServeProcess(tmp_path / "data")
    try:
        port = int(service.url.rsplit(":", 1)[1])
        before = len(service.log())
        for i in range(100):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
                conn.sendall(MALFORMED[i % 3] % port)
                assert conn.recv(64).startswith(b"HTTP/1.")  # answered 400, then closed
    finally:
        service.stop()
    added = service.log()[before:]
    lines = [line for line in added.splitlines() if "malformed request" in line]
    assert "Traceback" not in added and "\x00" not in added
    assert 1 <= len(lines) <= 10 and all(len(line) < 300 for line in lines)
    assert any("Duplicate" in line for line in lines)


def test_the_filter_lets_a_few_through_a_minute_and_counts_the_rest() -> None:
    now = [0.0]
    guard = MalformedRequests(limit=3, window=60.0, clock=lambda: now[0])
    bad = BadHttpMessage("Invalid header value char:\n\n    b'X: a\\x00b'\n          ^")
    passed = [guard.filter(record(bad)) for _ in range(5)]
    assert passed == [True, True, True, False, False] and guard.dropped == 2
    now[0] = 61.0
    shown = record(bad)
    assert guard.filter(shown)
    assert shown.getMessage().endswith("(2 more not logged)") and shown.exc_info is None
    assert shown.levelno == logging.WARNING
    other = record(RuntimeError("a bug of ours"))
    assert guard.filter(other) and other.exc_info is not None  # not a malformed request


@given(st.binary(max_size=2000))
def test_any_bytes_in_the_parser_s_reason_become_a_short_printable_excerpt(raw: bytes) -> None:
    guard = MalformedRequests(limit=10**9)
    shown = record(BadHttpMessage(raw.decode("latin-1")))
    assert guard.filter(shown)
    text = shown.getMessage()
    assert text.isascii() and text.isprintable() and len(text) < 200
