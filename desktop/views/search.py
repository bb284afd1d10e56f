"""Full-text search over a transcript's events, in slices the view runs between frames.

A file store is searched as bytes: each slice reads a few megabytes of the log,
lowercases them in one call and finds the needle with ``bytes.find``; only the
lines that match are looked at further (for their seq). A million-event log is
searched in well under a second, and the first matches show after the first slice.
No Qt here: the model drives the slices from its own timer.
"""

from __future__ import annotations

import time

import orjson

from desktop.views.events import FileEvents, MemoryEvents

SLICE_BYTES = 2 << 20
SLICE_EVENTS = 20000


def event_matches(event: dict, needle: str) -> bool:
    """True when the event's JSON text contains ``needle`` (case-insensitive)."""
    return needle.lower().encode() in orjson.dumps(event).lower()


class TextSearch:
    """One search for ``needle`` over ``store``; call :meth:`step` until :attr:`done`."""

    def __init__(self, store: MemoryEvents | FileEvents, needle: str) -> None:
        self.store = store
        self.needle = needle
        self._bytes = needle.lower().encode()
        self._next = 0  # byte offset (file) or position (memory) where the next slice starts
        self.done = False
        self.found = 0

    def step(self, seconds: float = 0.010) -> list[int]:
        """Search for about ``seconds``; the positions matched, ascending."""
        hits: list[int] = []
        end = time.perf_counter() + seconds
        while not self.done:
            hits.extend(self._slice())
            if time.perf_counter() >= end:
                break
        self.found += len(hits)
        return hits

    def run(self) -> list[int]:
        """Search to the end in one go."""
        hits: list[int] = []
        while not self.done:
            hits.extend(self.step(1.0))
        return hits

    def _slice(self) -> list[int]:
        if isinstance(self.store, FileEvents):
            seqs, self._next, self.done = self.store.log.search_step(
                self._bytes, self._next, SLICE_BYTES)
            return [s - 1 for s in seqs]
        events = self.store.events
        stop = min(len(events), self._next + SLICE_EVENTS)
        found = [i for i in range(self._next, stop)
                 if self._bytes in orjson.dumps(events[i]).lower()]
        self._next = stop
        self.done = stop >= len(events)
        return found
