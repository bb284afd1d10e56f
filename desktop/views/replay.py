"""The run state at any event N, computed by the store's reducer (no Qt).

Checkpoints of the folded state every ``every`` events make a jump to any N cost
at most ``every`` folds after the first pass over the log.
"""

from __future__ import annotations

from pathlib import Path

from desktop.store.reducer import apply_event, copy_json
from desktop.views.logfile import LogFile


class ReplayState:
    """Folds a run's log up to any seq, with checkpoints along the way."""

    def __init__(self, run_dir: Path, every: int = 500) -> None:
        self.log = LogFile(Path(run_dir) / "events.jsonl")
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
        """Release the log file."""
        self.log.close()
