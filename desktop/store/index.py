"""A sparse seq -> byte-offset index of an event log (``events.idx``).

Every ``step`` bytes of the log the index remembers the first complete, valid line that
starts after that boundary. Building it reads one short stretch per boundary, never the
whole file; a stale index (the log grew) is extended, a wrong one (the log shrank or was
replaced) is rebuilt. Writing it is best-effort: a read-only run folder still pages.
"""

import bisect
import contextlib
from pathlib import Path
from typing import BinaryIO

import orjson

from desktop.disk.atomic import atomic_write_bytes
from desktop.disk.safe_json import loads as safe_loads
from desktop.store.jsonl import CHUNK, decode_line, read_at
from desktop.store.safe_open import read_bytes

INDEX_FILE = "events.idx"
STEP = 1 << 16
_VERSION = 1
_INCOMPLETE = (-1, -1)


def _line_at(fh: BinaryIO, start: int, size: int) -> bytes | None:
    """The complete line starting at ``start`` (None when it has no newline yet)."""
    parts = []
    pos = start
    while pos < size:
        chunk = read_at(fh, pos, min(CHUNK, size - pos))
        nl = chunk.find(b"\n")
        if nl >= 0:
            parts.append(chunk[:nl])
            return b"".join(parts)
        parts.append(chunk)
        pos += len(chunk)
    return None


def _next_line_start(fh: BinaryIO, pos: int, size: int) -> int | None:
    while pos < size:
        chunk = read_at(fh, pos, min(CHUNK, size - pos))
        nl = chunk.find(b"\n")
        if nl >= 0:
            return pos + nl + 1
        pos += len(chunk)
    return None


class OffsetIndex:
    """Sparse index of one log file; call :meth:`refresh` before each lookup."""

    def __init__(self, run_dir: Path, step: int = STEP) -> None:
        self.path = Path(run_dir) / INDEX_FILE
        self.step = step
        self.entries: list[tuple[int, int]] = []  # (seq, offset), both increasing
        self.covered = 0  # every boundary below this has been looked at
        self._loaded = False

    def refresh(self, fh: BinaryIO, size: int) -> None:
        """Bring the index up to date with a log file of ``size`` bytes."""
        if not self._loaded:
            self._load()
            self._loaded = True
        if not self._valid(fh, size):
            self.entries, self.covered = [], 0
        changed = False
        boundary = self.covered
        while boundary < size:
            entry = self._entry_after(fh, boundary, size)
            if entry is _INCOMPLETE:
                break
            if entry is not None and (not self.entries or entry[1] > self.entries[-1][1]):
                self.entries.append(entry)
            boundary += self.step
            self.covered = boundary
            changed = True
        if changed:
            self._save()

    def offset_for(self, seq: int) -> int:
        """Offset of an indexed line whose seq is at most ``seq`` (0 when none is)."""
        i = bisect.bisect_right(self.entries, (seq, float("inf"))) - 1
        return self.entries[i][1] if i >= 0 else 0

    # --- internals -----------------------------------------------------------------------

    def _entry_after(self, fh: BinaryIO, boundary: int, size: int) -> tuple[int, int] | None:
        start = 0 if boundary == 0 else _next_line_start(fh, boundary, size)
        while start is not None and start < boundary + self.step:
            line = _line_at(fh, start, size)
            if line is None:
                return _INCOMPLETE
            d = decode_line(line)
            if isinstance(d, dict):
                return d["seq"], start
            start += len(line) + 1
        return None if start is not None else _INCOMPLETE

    def _valid(self, fh: BinaryIO, size: int) -> bool:
        if not self.entries:
            return self.covered <= size
        seq, offset = self.entries[-1]
        if offset >= size or self.covered > size + self.step:
            return False
        line = _line_at(fh, offset, size)
        d = decode_line(line) if line is not None else None
        return isinstance(d, dict) and d["seq"] == seq

    def _load(self) -> None:
        try:
            data = safe_loads(read_bytes(self.path))
            if data.get("v") != _VERSION or data.get("step") != self.step:
                return
            self.entries = [(int(s), int(o)) for s, o in data["entries"]]
            self.covered = int(data["covered"])
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            self.entries, self.covered = [], 0

    def _save(self) -> None:
        data = {"v": _VERSION, "step": self.step, "covered": self.covered,
                "entries": self.entries}
        with contextlib.suppress(OSError):
            atomic_write_bytes(self.path, orjson.dumps(data), make_folder=False)
