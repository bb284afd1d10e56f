"""The one reader of a run's event log: pages by seq, a full scan, a tail and a live follow.

Readers never take the writer's lock: the writer appends whole lines with one write, so a
reader sees complete lines plus, at most, an unfinished last line it leaves for later.
Lines are decoded by :func:`desktop.store.jsonl.decode_line`, the same function the
writer uses when it opens a log; pages start from the store's sparse offset index.
"""

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import orjson

from desktop.store.index import STEP, OffsetIndex
from desktop.store.jsonl import (
    EVENTS_FILE,
    Problem,
    complete_end,
    decode_line,
    file_size,
    iter_lines,
    read_at,
)
from desktop.store.safe_open import open_file

_BACK_CHUNK = 1 << 18
_TAIL_CHUNK = 1 << 22


@dataclass
class Page:
    """One page of events in seq order; ``next_cursor`` continues in the same direction."""

    events: list[dict]
    has_more: bool
    next_cursor: int | None


def _iter_back(fh: BinaryIO, end: int) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` for the complete lines before ``end``, last first."""
    if end <= 0:
        return
    pos = end - 1  # the newline that ends the last line
    tail = b""
    while pos > 0:
        start = max(0, pos - _BACK_CHUNK)
        data = read_at(fh, start, pos - start) + tail
        lines = data.split(b"\n")
        tail = lines[0]
        off = start + len(data)
        for line in reversed(lines[1:]):
            off -= len(line)
            yield off, line
            off -= 1
        pos = start
    yield 0, tail


def is_run_folder(path: Path) -> bool:
    """Whether ``path`` is a run's folder (it holds the run's event log)."""
    return (Path(path) / EVENTS_FILE).is_file()


class EventReader:
    """Read-only access to ``run_dir/events.jsonl``; skipped stretches land in ``problems``."""

    def __init__(self, run_dir: Path, *, index_step: int = STEP) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / EVENTS_FILE
        self.problems: list[Problem] = []
        self._index = OffsetIndex(self.run_dir, index_step)

    def page(self, limit: int = 100, before: int | None = None,
             after: int | None = None) -> Page:
        """Up to ``limit`` events: after ``after`` (forward), else before ``before`` or newest.

        Forward pages continue with ``after=next_cursor``; backward pages (newest first
        page, then older ones) with ``before=next_cursor``.
        """
        if limit < 1:
            raise ValueError("limit must be at least 1")
        if not self.path.exists():
            return Page([], False, None)
        self.problems = []
        with open_file(self.path) as fh:
            size = file_size(fh)
            end = complete_end(fh, size)
            if after is not None:
                return self._forward(fh, end, limit, after, before)
            return self._backward(fh, end, limit, before)

    def iter_events(self, after: int = 0) -> Iterator[dict]:
        """Every valid event with seq > ``after``, in order; corrupt lines are skipped."""
        if not self.path.exists():
            return
        self.problems = []
        with open_file(self.path) as fh:
            size = file_size(fh)
            end = complete_end(fh, size)
            start = self.start_for(fh, size, after)
            last = after
            loads = orjson.loads
            problem = self._problem
            for off, line in iter_lines(fh, start, end):
                try:  # the common case without decode_line's checks; odd lines go there
                    d = loads(line)
                    seq = d["seq"]
                    if type(seq) is int and seq > last and type(d) is dict:
                        last = seq
                        yield d
                        continue
                except Exception:  # any unreadable line is reported below, never raised
                    pass
                problem(off, line, last)
            if end < size:
                self.problems.append(Problem("torn_tail", end, size - end,
                                             "incomplete last line (crash or write in progress)"))

    def tail(self, after: int = 0) -> "LogTail":
        """A :class:`LogTail` of this log that returns events with seq > ``after``."""
        return LogTail(self.run_dir, after, reader=self)

    async def follow(self, after: int = 0, poll: float = 0.05) -> AsyncIterator[dict]:
        """Events with seq > ``after`` as they are written; runs until the consumer stops."""
        tail = self.tail(after)
        while True:
            events = tail.read_new()
            for d in events:
                yield d
            if not events:
                await asyncio.sleep(poll)

    def start_for(self, fh: BinaryIO, size: int, after: int) -> int:
        """A line offset at or before the first event with seq > ``after`` (from the index)."""
        if after <= 0:
            return 0
        self._index.refresh(fh, size)
        return self._index.offset_for(after + 1)

    # --- internals -------------------------------------------------------------------

    def _problem(self, off: int, line: bytes, last: int) -> None:
        d = decode_line(line)
        detail = d if isinstance(d, str) else f"seq {d['seq']} is not above {last}"
        self.problems.append(Problem("corrupt_line", off, len(line) + 1, detail))

    def _forward(self, fh: BinaryIO, end: int, limit: int, after: int,
                 before: int | None) -> Page:
        out: list[dict] = []
        last = after
        for off, line in iter_lines(fh, self.start_for(fh, end, after), end, chunk=_BACK_CHUNK):
            d = decode_line(line)
            if not isinstance(d, dict) or d["seq"] <= last:
                if not isinstance(d, dict) or d["seq"] > after:
                    self._problem(off, line, last)
                continue
            if before is not None and d["seq"] >= before:
                break
            last = d["seq"]
            out.append(d)
            if len(out) > limit:
                break
        has_more = len(out) > limit
        events = out[:limit]
        return Page(events, has_more, events[-1]["seq"] if has_more else None)

    def _backward(self, fh: BinaryIO, end: int, limit: int, before: int | None) -> Page:
        if before is not None:
            end = self._end_before(fh, end, before)
        out: list[tuple[dict, int, int]] = []
        for off, line in _iter_back(fh, end):
            d = decode_line(line)
            if not isinstance(d, dict):
                self._problem(off, line, 0)
                continue
            # a later line whose seq is not above this one's was out of order: drop it
            while out and out[-1][0]["seq"] <= d["seq"]:
                bad, bad_off, bad_len = out.pop()
                self.problems.append(Problem("corrupt_line", bad_off, bad_len,
                                             f"seq {bad['seq']} is out of order"))
            out.append((d, off, len(line) + 1))
            if len(out) > limit:
                break
        has_more = len(out) > limit
        events = [d for d, _, _ in out[:limit]][::-1]
        return Page(events, has_more, events[0]["seq"] if has_more else None)

    def _end_before(self, fh: BinaryIO, end: int, before: int) -> int:
        """Offset of the first line with seq >= ``before`` (``end`` when there is none)."""
        self._index.refresh(fh, end)
        start = self._index.offset_for(before)
        for off, line in iter_lines(fh, start, end, chunk=_BACK_CHUNK):
            d = decode_line(line)
            if isinstance(d, dict) and d["seq"] >= before:
                return off
        return end


class LogTail:
    """The events appended to a log since the last call, for a run another process writes.

    Remembers the byte offset just past the last complete line it read; an unfinished
    last line (a write still in progress, or torn by a crash) is left for a later call,
    so a line written in pieces is returned once, whole. Only events with a seq above
    the last one returned are kept; a log that shrank (repaired or replaced) is picked
    up again after that seq.
    """

    def __init__(self, run_dir: Path, after: int = 0, *, reader: EventReader | None = None,
                 offset: int | None = None) -> None:
        """``offset``: where the line after seq ``after`` starts, when the caller read up
        to there (else it is found from the log's offset index)."""
        self.reader = reader or EventReader(run_dir)
        self.path = self.reader.path
        self.after = after  # the seq of the last event returned
        self._offset: int | None = offset if offset is not None else 0 if after <= 0 else None

    def read_new(self) -> list[dict]:
        """New complete events with seq above :attr:`after`, in order."""
        return list(self.iter_new())

    def iter_new(self) -> Iterator[dict]:
        """:meth:`read_new` one event at a time (a long log is never held in a list)."""
        try:
            fh = open_file(self.path)  # closed below
        except FileNotFoundError:
            return
        with fh:
            size = file_size(fh)
            offset = self._offset
            if offset is None or size < offset:
                offset = self.reader.start_for(fh, size, self.after)
            end = complete_end(fh, size)
            if end > offset:
                for _, line in iter_lines(fh, offset, end, chunk=_TAIL_CHUNK):
                    d = decode_line(line)
                    if type(d) is dict and d["seq"] > self.after:
                        self.after = d["seq"]
                        yield d
            self._offset = max(offset, end)
