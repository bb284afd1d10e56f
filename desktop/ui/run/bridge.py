"""The one path from a run's events to the widgets: coalesced, GUI thread only.

Events arrive on the GUI thread (the service's WebSocket stream runs on the GUI's
asyncio loop; a run written by another process is polled from its log). The
bridge appends them to a buffer and arms a 16 ms timer; each tick hands every view
one batch, so no view redraws more than about 60 times a second whatever the event
rate. The bridge also keeps the run state: the
:class:`~desktop.views.state.RunProjection` of the same events.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from desktop.views.state import RunProjection

FRAME_MS = 16


class RunBridge(QObject):
    """Buffers events and emits them in batches at most every 16 ms (GUI thread only)."""

    # object, not list: a list signal converts every event to a QVariant on each emit
    events = Signal(object)  # list[dict], seq order
    stateChanged = Signal(object)  # the run state as a camelCase dict

    def __init__(self, parent: QObject | None = None, *, frame_ms: int = FRAME_MS,
                 keep_state: bool = True) -> None:
        super().__init__(parent)
        self._pending: deque[dict] = deque()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(frame_ms)
        self._timer.timeout.connect(self.drain)
        self._follow_timer: QTimer | None = None
        self._keep_state = keep_state
        self.projection = RunProjection()
        self.delivered = 0

    # --- sources --------------------------------------------------------------------------

    def follow_file(self, run_dir: Path, after: int = 0, poll_ms: int = 100,
                    offset: int | None = None) -> None:
        """Tail a run written by another process (e.g. ``agent-canvas run``), from the
        event after seq ``after`` (whose line starts at byte ``offset``, when known)."""
        from desktop.views.reader import LogTail

        self.detach()
        tail = LogTail(Path(run_dir), after, offset=offset)
        self._follow_timer = QTimer(self)
        self._follow_timer.setInterval(poll_ms)
        self._follow_timer.timeout.connect(lambda: self.push(tail.read_new()))
        self._follow_timer.start()

    def detach(self) -> None:
        """Stop polling the log of a run written by another process."""
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer.deleteLater()
            self._follow_timer = None

    # --- buffer ----------------------------------------------------------------------------

    def push(self, events: list[dict]) -> None:
        """Queue events; they are delivered on the next frame."""
        if not events:
            return
        self._pending.extend(events)
        if not self._timer.isActive():
            self._timer.start()

    def drain(self) -> None:
        """Deliver everything buffered as one batch (also callable directly in tests)."""
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
        self._pending.clear()
        self.projection.reset(state)
