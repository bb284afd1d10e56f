"""Where the transcript's events live: in memory (fed dicts) or in a run's log file.

Both stores number events by position (0-based, in seq order) and keep two compact
columns per event, a type code and a node code, so filters never touch the events
themselves. A file store reads event bodies lazily; a memory store holds them.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from pathlib import Path

import orjson

from desktop.views.logfile import Codes, LogFile

_RECENT = 20000


class MemoryEvents:
    """Events handed over as dicts (tests, standalone widgets, the no-file case)."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.types = array("H")
        self.nodes = array("H")
        self.type_codes = Codes()
        self.node_codes = Codes()

    @property
    def count(self) -> int:
        """How many events there are."""
        return len(self.events)

    @property
    def indexed(self) -> int:
        """How many events have type and node codes (all of them here)."""
        return len(self.events)

    def index_step(self, budget: int = 0) -> bool:
        """Nothing to index in memory."""
        return True

    def ingest(self, events: list[dict]) -> None:
        """Add live events (in seq order)."""
        tcode, ncode = self.type_codes.code, self.node_codes.code
        for event in events:
            self.events.append(event)
            self.types.append(tcode(event.get("type")))
            self.nodes.append(ncode(event.get("nodeId")))

    def get(self, pos: int) -> dict | None:
        """The event at ``pos``."""
        return self.events[pos] if 0 <= pos < len(self.events) else None

    def search(self, needle: str) -> set[int]:
        """Positions whose event text contains ``needle`` (case-insensitive)."""
        low = needle.lower().encode()
        return {i for i, e in enumerate(self.events) if low in orjson.dumps(e).lower()}

    def close(self) -> None:
        """Nothing to release."""


class FileEvents:
    """A run's ``events.jsonl``, read lazily; position ``p`` is seq ``p + 1``."""

    def __init__(self, path: Path) -> None:
        self.log = LogFile(path)
        self._count = self.log.last_seq()
        self._recent: OrderedDict[int, dict] = OrderedDict()
        self.types = self.log.types
        self.nodes = self.log.nodes
        self.type_codes = self.log.type_codes
        self.node_codes = self.log.node_codes

    @property
    def count(self) -> int:
        """Events in the log as far as we know (the last seq)."""
        return max(self._count, self.log.indexed)

    @property
    def indexed(self) -> int:
        """Events whose type and node codes are known."""
        return self.log.indexed

    def index_step(self, budget: int = 4 << 20) -> bool:
        """Index another slice of the file; True when caught up."""
        done = self.log.index_step(budget)
        self._count = max(self._count, self.log.indexed)
        return done

    def read_all(self) -> list[dict]:
        """Index the whole log now and return its events in seq order: the one read of a
        log that gives both the transcript its index and a projection its events."""
        events: list[dict] = []
        while not self.log.index_step(into=events):
            pass
        self._count = max(self._count, self.log.indexed)
        return events

    def ingest(self, events: list[dict]) -> None:
        """Note live events already written to the log (kept for cheap reads)."""
        for event in events:
            seq = event.get("seq")
            if isinstance(seq, int):
                self._recent[seq] = event
                self._count = max(self._count, seq)
        self.log.note_live(events)  # codes only events right after the indexed ones
        while len(self._recent) > _RECENT:
            self._recent.popitem(last=False)

    def get(self, pos: int) -> dict | None:
        """The event at ``pos`` (seq ``pos + 1``)."""
        seq = pos + 1
        event = self._recent.get(seq)
        return event if event is not None else self.log.get(seq)

    def close(self) -> None:
        """Release the file."""
        self.log.close()
