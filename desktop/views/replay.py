"""The run state at any event N, computed by the store's reducer (no Qt).

Checkpoints of the folded state every ``every`` events make a jump to any N cost
at most ``every`` folds after the first pass over the log.

The events come from the run's log file, or from a run already held in memory (a run
opened through the service's API, on this machine or another): :class:`HeldEvents`.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from desktop.store.reducer import apply_event, copy_json
from desktop.views.logfile import LogFile


class EventSource(Protocol):
    """Events by seq: a log file (:class:`LogFile`) or :class:`HeldEvents`."""

    def get(self, seq: int) -> dict | None: ...

    def last_seq(self) -> int: ...

    def close(self) -> None: ...


class HeldEvents:
    """A run's events already in memory, in seq order (they may still grow)."""

    def __init__(self, events: Sequence[dict]) -> None:
        self.events = events

    def get(self, seq: int) -> dict | None:
        """The event with ``seq``: at ``seq - 1`` when the seqs have no gap, else found."""
        events = self.events
        if 0 < seq <= len(events) and events[seq - 1].get("seq") == seq:
            return events[seq - 1]
        at = bisect.bisect_left(events, seq, key=lambda e: e.get("seq", 0))
        return events[at] if at < len(events) and events[at].get("seq") == seq else None

    def last_seq(self) -> int:
        """The seq of the newest event (0 when there is none)."""
        return int(self.events[-1].get("seq", 0)) if self.events else 0

    def close(self) -> None:
        """Nothing to release: the events belong to whoever holds them."""


class ReplayState:
    """Folds a run's events up to any seq, with checkpoints along the way."""

    def __init__(self, run: Path | EventSource, every: int = 500) -> None:
        """``run``: a run folder (its log is read), or the events themselves."""
        self.log: EventSource = LogFile(Path(run) / "events.jsonl") \
            if isinstance(run, (str, Path)) else run
        self.total = self.log.last_seq()
        self.every = every
        self._checkpoints: dict[int, dict | None] = {0: None}  # seq -> state after it

    def refresh(self) -> int:
        """Pick up events appended since opening; returns the new total."""
        self.total = self.log.last_seq()
        return self.total

    def state_at(self, seq: int) -> dict | None:
        """A fresh copy of the run state after event ``seq`` (0: before any event)."""
        seq = max(0, min(seq, self.total))
        base = max(k for k in self._checkpoints if k <= seq)
        state = copy_json(self._checkpoints[base])
        for n in range(base + 1, seq + 1):
            event = self.log.get(n)
            if event is not None:
                state = apply_event(state, event)
            if n % self.every == 0 and n not in self._checkpoints:
                self._checkpoints[n] = copy_json(state)
        return state

    def event(self, seq: int) -> dict | None:
        """The event with ``seq``."""
        return self.log.get(seq) if 0 < seq <= self.total else None

    def close(self) -> None:
        """Release the log file (if it is one)."""
        self.log.close()
