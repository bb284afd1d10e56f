"""The one path from a run's event log to the widgets: coalesced, GUI-thread only.

The log calls its subscribers after each flush; the bridge only appends those events
to a buffer (safe from any thread) and wakes a 16 ms timer on the GUI thread. Each
tick hands every view one batch, so no view redraws more than about 60 times a
second whatever the event rate. The bridge also keeps the run state: the
:class:`~desktop.views.state.RunProjection` of the same events.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from desktop.views.state import RunProjection

FRAME_MS = 16


class RunBridge(QObject):
    """Buffers events from any thread and emits them in batches at most every 16 ms."""

    # object, not list: a list signal converts every event to a QVariant on each emit
    events = Signal(object)  # list[dict], seq order
    stateChanged = Signal(object)  # the run state as a camelCase dict
    _wake = Signal()

    def __init__(self, parent: QObject | None = None, *, frame_ms: int = FRAME_MS,
                 keep_state: bool = True) -> None:
        super().__init__(parent)
        self._pending: deque[dict] = deque()
        self._lock = threading.Lock()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(frame_ms)
        self._timer.timeout.connect(self.drain)
        self._wake.connect(self._arm, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe: Callable[[], None] | None = None
        self._follow_timer: QTimer | None = None
        self._keep_state = keep_state
        self.projection = RunProjection()
        self.delivered = 0

    # --- sources --------------------------------------------------------------------------

    def attach_log(self, event_log: Any) -> None:
        """Listen to a live :class:`~desktop.store.eventlog.EventLog` (the in-process engine)."""
        self.detach()
        self._unsubscribe = event_log.subscribe(self.push)

    def follow_file(self, run_dir: Path, after: int = 0, poll_ms: int = 100) -> None:
        """Tail a run written by another process (e.g. ``agent-canvas run``)."""
        from desktop.views.reader import LogTail

        self.detach()
        tail = LogTail(Path(run_dir), after)
        self._follow_timer = QTimer(self)
        self._follow_timer.setInterval(poll_ms)
        self._follow_timer.timeout.connect(lambda: self.push(tail.read_new()))
        self._follow_timer.start()

    def detach(self) -> None:
        """Stop listening to the current source."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer.deleteLater()
            self._follow_timer = None

    # --- buffer ----------------------------------------------------------------------------

    def push(self, events: list[dict]) -> None:
        """Queue events (any thread); the GUI thread delivers them on the next frame."""
        if not events:
            return
        with self._lock:
            was_empty = not self._pending
            self._pending.extend(events)
        if was_empty:
            if threading.current_thread() is threading.main_thread():
                self._arm()
            else:
                self._wake.emit()

    def _arm(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def drain(self) -> None:
        """Deliver everything buffered as one batch (also callable directly in tests)."""
        with self._lock:
            batch = list(self._pending)
            self._pending.clear()
        if not batch:
            return
        self.delivered += len(batch)
        if self._keep_state:
            self.projection.apply(batch)
        self.events.emit(batch)
        if self._keep_state and self.state is not None:
            self.stateChanged.emit(self.state)

    @property
    def state(self) -> dict | None:
        """The run state folded from the events delivered so far (wire form; do not mutate)."""
        return self.projection.state

    def reset(self, state: dict | None = None) -> None:
        """Forget buffered events and start from ``state`` (a wire-form dict)."""
        with self._lock:
            self._pending.clear()
        self.projection.reset(state)
