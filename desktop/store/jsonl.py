"""Low-level pieces of the event-log file format shared by the writer and the readers.

One event per line: a compact JSON object carrying ``seq`` (a positive int),
terminated by ``\\n``. A line that does not parse, is not an object, or has no valid seq
is *corrupt*; bytes after the last ``\\n`` are a *torn tail* (a write cut short).
"""

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import orjson

from desktop.disk.safe_json import loads as safe_loads

EVENTS_FILE = "events.jsonl"
LOCK_SUFFIX = ".lock"
CHUNK = 1 << 16


@dataclass(frozen=True)
class Problem:
    """A stretch of the log that is not an event: where it is and why it was skipped."""

    kind: str  # "corrupt_line" | "torn_tail"
    offset: int
    length: int
    detail: str


def decode_line(line: bytes) -> dict | str:
    """The event on ``line`` (without its newline), or a short reason it is not one."""
    try:
        obj = safe_loads(line)
    except orjson.JSONDecodeError as exc:
        return f"not JSON ({str(exc)[:80]})"
    if type(obj) is not dict:
        return "not a JSON object"
    seq = obj.get("seq")
    if type(seq) is not int or seq < 1:
        return "no positive integer seq"
    return obj


def read_at(fh: BinaryIO, offset: int, size: int) -> bytes:
    """``size`` bytes from ``offset`` (fewer at the end of the file)."""
    fh.seek(offset)
    return fh.read(size)


def line_start_before(fh: BinaryIO, end: int) -> int:
    """Offset of the start of the line that ends just before ``end`` (after the previous \\n)."""
    pos = end
    while pos > 0:
        start = max(0, pos - CHUNK)
        chunk = read_at(fh, start, pos - start)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            return start + nl + 1
        pos = start
    return 0


def complete_end(fh: BinaryIO, size: int) -> int:
    """Offset just past the last ``\\n`` at or before ``size`` (0 if there is none)."""
    if size == 0:
        return 0
    if read_at(fh, size - 1, 1) == b"\n":
        return size
    return line_start_before(fh, size)


def last_event(fh: BinaryIO, end: int) -> tuple[dict | None, int]:
    """The last valid event among the complete lines before ``end`` and its offset."""
    pos = end
    while pos > 0:
        start = line_start_before(fh, pos - 1)
        decoded = decode_line(read_at(fh, start, pos - 1 - start))
        if isinstance(decoded, dict):
            return decoded, start
        pos = start
    return None, 0


def file_size(fh: BinaryIO) -> int:
    """Current size of the open file (other processes may have grown it)."""
    return os.fstat(fh.fileno()).st_size


def iter_lines(
    fh: BinaryIO, start: int, end: int, chunk: int = 1 << 22
) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` for each complete line in ``[start, end)``; ``end`` ends a line."""
    fh.seek(start)
    pos = start
    remaining = end - start
    buf = b""
    while remaining > 0:
        data = fh.read(min(chunk, remaining))
        if not data:
            break
        remaining -= len(data)
        buf = buf + data if buf else data
        lines = buf.split(b"\n")
        buf = lines.pop()
        for line in lines:
            yield pos, line
            pos += len(line) + 1
