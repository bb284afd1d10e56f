"""The frames a run's feed handed out lately, found by the seq they start at.

A client closed as too slow (4008) reconnects with ``after=<last seq>``, and a client
that finds a hole in front of a batch reads it from the log: either way it used to read
those events from ``events.jsonl``, decode them and encode them again, for itself alone.
When a burst leaves 200 clients behind, that was most of the service's CPU. The frames
a client was sent end where the feed's frames end, so the frame after its last seq is
usually still here, encoded once for everyone, and it is sent as it is.
"""

from __future__ import annotations

import bisect
from collections import deque

from desktop.api.stream import Batch

HISTORY_BYTES = 32 << 20
"""Bytes of frames a run keeps (the oldest go first)."""


class FrameHistory:
    """The newest frames of one run's feed, contiguous in seq, at most ``limit`` bytes."""

    def __init__(self, limit: int = HISTORY_BYTES) -> None:
        self.limit = limit
        self._frames: dict[int, tuple[bytes, int]] = {}
        """First seq of a frame -> (the frame, the seq of its last event)."""
        self._order: deque[int] = deque()
        self._bytes = 0
        self._next: int | None = None
        """The seq after the newest frame kept."""

    def add(self, batch: Batch) -> None:
        """Keep ``batch``'s frames; a batch that does not follow the newest frame (the run
        was taken over after a gap) or whose seqs are not consecutive starts over."""
        consecutive = batch.last - batch.first + 1 == len(batch.events)
        if not consecutive or (self._next is not None and batch.first != self._next):
            self.clear()
            if not consecutive:
                return
        first = batch.first
        for data, last in batch.frames():
            self._frames[first] = (data, last)
            self._order.append(first)
            self._bytes += len(data)
            first = last + 1
        self._next = first
        while self._bytes > self.limit:
            data, _last = self._frames.pop(self._order.popleft())
            self._bytes -= len(data)

    def after(self, seq: int) -> tuple[bytes, int] | None:
        """The frame that starts just after ``seq`` and the seq it ends with, if kept."""
        return self._frames.get(seq + 1)

    def next_start(self, seq: int) -> int | None:
        """Where the oldest kept frame starting after ``seq + 1`` starts: a client served
        from the log up to there is in step with the kept frames again."""
        order = self._order
        at = bisect.bisect_right(order, seq + 1)
        return order[at] if at < len(order) else None

    def clear(self) -> None:
        self._frames.clear()
        self._order.clear()
        self._bytes = 0
        self._next = None

    @property
    def size(self) -> int:
        """Bytes of frames kept."""
        return self._bytes
