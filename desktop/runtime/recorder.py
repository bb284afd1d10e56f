"""The engine's side of the event log: emit partial events, flush soon, fold what was written.

Events from the engine, providers and turns arrive as partial dicts. The
recorder fills ``id``/``runId``/``ts``/``nodeId``, buffers them in the
:class:`~desktop.store.eventlog.EventLog` and schedules one flush per loop
iteration, so a burst of deltas from fifty agents becomes one write and one
fsync. The engine's view of the run (:attr:`Recorder.state`) is the reducer's
fold of exactly what reached the log, so nothing that matters lives only in
memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from typing import Any

from desktop.contract.base import new_id, utc_now
from desktop.contract.state import RunState
from desktop.store.eventlog import EventLog
from desktop.store.reducer import State, apply_event, copy_json, state_dict
from desktop.store.statefix import validate_state

Listener = Callable[[list[dict[str, Any]]], None]

# Streaming events change nothing in the run state but the clock and the
# activity time, so they do not invalidate the cached model of the state.
_STREAM_TYPES = frozenset({
    "message.assistant.delta", "message.assistant.thinking.delta", "node.heartbeat",
    "node.log",
})


class Recorder:
    """Single writer of a run's events and holder of the folded state."""

    def __init__(self, log: EventLog, state: RunState | None = None,
                 run_id: str | None = None) -> None:
        self.log = log
        self._s: State | None = state_dict(state)
        self._model: RunState | None = state
        self.run_id = run_id or (state.id if state else None) or log.run_id
        if self.run_id:
            log.run_id = self.run_id
        self.last_seen: dict[str, float] = {}
        self._listeners: list[Listener] = []
        self._flush_handle: asyncio.Handle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe = log.subscribe(self._on_written)

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(events)`` after each written batch, once ``state`` includes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners \
            else None

    def emit(self, event: dict[str, Any], node_id: str | None = None) -> None:
        """Fill the envelope fields of a partial event, buffer it and schedule a flush."""
        event = dict(event)
        if node_id and not event.get("nodeId"):
            event["nodeId"] = node_id
        if event.get("nodeId") is None:
            event.pop("nodeId", None)
        event.setdefault("id", new_id())
        event.setdefault("ts", utc_now())
        if self.run_id:
            event["runId"] = self.run_id
        self.log.append(event)
        self._schedule()

    def emitter(self, node_id: str) -> Callable[[dict[str, Any]], None]:
        """An ``emit`` bound to one node (for TurnContext.emit and gates)."""
        append = self.log.append
        run_id = self.run_id

        def emit(event: dict[str, Any]) -> None:
            event = dict(event)
            event["runId"] = run_id
            event.setdefault("nodeId", node_id)
            append(event)  # the log fills id and ts
            self._schedule()

        return emit

    def _schedule(self) -> None:
        if self._flush_handle is not None:
            return
        try:
            loop = self._loop or asyncio.get_running_loop()
        except RuntimeError:  # no loop (set-up code): write now
            self.flush()
            return
        self._loop = loop
        self._flush_handle = loop.call_soon(self.flush)

    def flush(self) -> list[dict[str, Any]]:
        """Write what is buffered now (durably) and fold it; returns the written events."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        return self.log.flush()

    def load(self, events: Iterable[dict[str, Any]],
             each: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Fold events already in the log (resuming); ``each`` sees every one of them."""
        s = self._s
        for event in events:
            s = apply_event(s, event)
            if each is not None:
                each(event)
        self._s = s
        self._model = None
        if s is not None:
            self.run_id = s.get("id") or self.run_id

    @property
    def state(self) -> RunState:
        """The fold of every event written so far, as a model (cached between changes)."""
        if self._model is None:
            if self._s is None:
                raise RuntimeError("the run has no state yet (no run.created written)")
            self._model = validate_state(copy_json(self._s))
        return self._model

    @property
    def state_dict(self) -> State | None:
        """The folded state in wire form (exact, including activity times); do not mutate."""
        return self._s

    def _on_written(self, events: list[dict[str, Any]]) -> None:
        s = self._s
        now = time.monotonic()
        last_seen = self.last_seen
        changed = False
        for event in events:
            node_id = event.get("nodeId")
            if node_id:
                last_seen[node_id] = now
            s = apply_event(s, event)
            if event.get("type") not in _STREAM_TYPES:
                changed = True
        self._s = s
        if changed:
            self._model = None
        for listener in list(self._listeners):
            listener(events)

    def close(self) -> None:
        """Write what is left and stop listening to the log."""
        with contextlib.suppress(Exception):
            self.flush()
        self._unsubscribe()
