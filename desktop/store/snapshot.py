"""``state.json``: an atomically written snapshot of the folded state, and its writer.

Opening a run loads the snapshot and folds only the events after its ``lastSeq``. A missing
or unreadable snapshot is not an error; the run is then folded from its first event.
"""

from pathlib import Path

import orjson
from pydantic import ValidationError

from desktop.contract.state import RunState
from desktop.disk.atomic import atomic_write_json
from desktop.disk.safe_json import loads as safe_loads
from desktop.store.eventlog import EventLog
from desktop.store.reducer import State, apply_event, state_dict
from desktop.store.safe_open import read_bytes
from desktop.store.state_repair import validate_state

STATE_FILE = "state.json"


def write_snapshot(run_dir: Path, state: RunState | dict) -> None:
    """Atomically replace ``run_dir/state.json`` with ``state``."""
    data = state.to_json_dict() if isinstance(state, RunState) else state
    atomic_write_json(Path(run_dir) / STATE_FILE, data)


def read_snapshot(run_dir: Path) -> RunState | None:
    """The snapshot in ``run_dir``, or None when there is none or it does not validate."""
    try:
        return RunState.model_validate(safe_loads(read_bytes(Path(run_dir) / STATE_FILE)))
    except (OSError, orjson.JSONDecodeError, ValidationError):
        return None


class Snapshotter:
    """An event-log subscriber that folds as events arrive and writes ``state.json``.

    It writes every ``every`` events and on :meth:`close`. Give the state the run was
    opened with (``state``) when resuming, and the log to follow (``log``) or call
    :meth:`attach` later.
    """

    def __init__(self, run_dir: Path, every: int = 1000, *, state: RunState | None = None,
                 log: EventLog | None = None) -> None:
        if every < 1:
            raise ValueError("every must be at least 1")
        self.run_dir = Path(run_dir)
        self.every = every
        self._state: State | None = state_dict(state)
        self._since_write = 0
        self._unsubscribe = None
        if log is not None:
            self.attach(log)

    def attach(self, log: EventLog) -> None:
        """Subscribe to ``log``."""
        self.detach()
        self._unsubscribe = log.subscribe(self)

    def detach(self) -> None:
        """Stop following the log."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def __call__(self, events: list[dict]) -> None:
        s = self._state
        last = s["lastSeq"] if s is not None else 0
        for e in events:
            if e.get("seq", 0) > last:  # a snapshot already holds older events
                s = apply_event(s, e)
        self._state = s
        self._since_write += len(events)
        if self._since_write >= self.every:
            self.write()

    @property
    def state(self) -> RunState | None:
        """The state folded so far."""
        return None if self._state is None else validate_state(dict(self._state))

    def write(self) -> None:
        """Write ``state.json`` now (nothing to write before the first event)."""
        if self._state is not None:
            state = validate_state(self._state)
            self._state = state.to_json_dict()
            write_snapshot(self.run_dir, self._state)
        self._since_write = 0

    def close(self) -> None:
        """Write the final snapshot and stop following the log."""
        self.detach()
        self.write()
