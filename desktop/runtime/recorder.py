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
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from desktop.contract.state import RunState
from desktop.providers.redact import Redactor
from desktop.store.eventlog import EventLog
from desktop.store.reducer import State
from desktop.views.state import RunProjection

Listener = Callable[[list[dict[str, Any]]], None]
# A burst from busy agents never yields to the loop, so a flush scheduled with
# call_soon could wait for the whole burst; the buffer is also written once it
# holds this many events or its oldest event is this old.
MAX_BATCH = 2000
MAX_AGE = 0.005


class _Stamps:
    """Event ids and timestamps, cheap enough for every streamed delta.

    Ids are UUIDv4-shaped: a random per-process prefix and a counter, so they
    stay unique without asking the OS for randomness per event. Timestamps are
    formatted once per millisecond.
    """

    def __init__(self) -> None:
        base = uuid.uuid4().hex
        self._prefix = f"{base[:8]}-{base[8:12]}-4{base[13:16]}-{'89ab'[int(base[16], 16) % 4]}"
        self._high = int(base[17:20], 16)
        self._counter = int(base[20:], 16) & 0xFFFFFFFF
        self._ms = -1
        self._ts = ""

    def new_id(self) -> str:
        self._counter += 1
        if self._counter > 0xFFFFFFFFFFFF:
            self._counter, self._high = 0, (self._high + 1) & 0xFFF
        return f"{self._prefix}{self._high:03x}-{self._counter:012x}"

    def now(self) -> str:
        wall = time.time()
        ms = int(wall * 1000)
        if ms != self._ms:
            self._ms = ms
            moment = datetime.fromtimestamp(ms / 1000, UTC)
            self._ts = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
        return self._ts


class Recorder:
    """Single writer of a run's events and holder of the folded state.

    Writing happens on one background thread while the loop keeps reading the
    agents: each batch is handed over whole, so batches reach the log (and the
    listeners) in the order they were emitted. :meth:`flush` is the
    synchronous form for moments the engine must know an event is on disk.
    """

    def __init__(self, log: EventLog, state: RunState | None = None,
                 run_id: str | None = None, redactor: Redactor | None = None) -> None:
        self.log = log
        # Every event passes here on its way to the log, so secrets are removed here.
        self.redactor = redactor if redactor else None
        self._projection = RunProjection(state)
        self.run_id = run_id or (state.id if state else None) or log.run_id
        if self.run_id:
            log.run_id = self.run_id
        self.last_seen: dict[str, float] = {}
        self._listeners: list[Listener] = []
        self._stamps = _Stamps()
        self._pending: list[dict[str, Any]] = []
        self._oldest = 0.0
        self._written: deque[list[dict[str, Any]]] = deque()
        self._writer: ThreadPoolExecutor | None = None
        self._in_flight: Future[Any] | None = None
        # Events handed to the log so far, and how many of them are durable and folded
        # (batches land in the order they were handed over).
        self._submitted = 0
        self._durable = 0
        self._flight_mark = 0
        self._kick_handle: asyncio.Handle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe = log.subscribe(self._written.append)  # any thread; ordered

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(events)`` after each written batch, once ``state`` includes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners \
            else None

    def emit(self, event: dict[str, Any], node_id: str | None = None) -> None:
        """Fill the envelope fields of a partial event, buffer it and schedule a write."""
        event = dict(event)
        if node_id and not event.get("nodeId"):
            event["nodeId"] = node_id
        if event.get("nodeId") is None:
            event.pop("nodeId", None)
        self._append(event)

    def emitter(self, node_id: str) -> Callable[[dict[str, Any]], None]:
        """An ``emit`` bound to one node (for TurnContext.emit and gates).

        The event dict is taken over (providers hand over fresh dicts), and so is it
        by the log, which adds its ``seq``.
        """
        append = self._append

        def emit(event: dict[str, Any]) -> None:
            if not event.get("nodeId"):
                event["nodeId"] = node_id
            append(event)

        return emit

    def batch_emitter(self, node_id: str, redacted: bool = False
                      ) -> Callable[[list[dict[str, Any]]], None]:
        """Like :meth:`emitter`, for a list of events at once (a streaming agent's read).

        ``redacted``: the caller (the turn runner) has already removed secrets, so the
        hot path of a streaming agent does not pay for it twice.
        """
        append_many = self._append_many

        def emit_many(events: list[dict[str, Any]]) -> None:
            for event in events:
                if not event.get("nodeId"):
                    event["nodeId"] = node_id
            append_many(events, redacted)

        return emit_many

    def _append(self, event: dict[str, Any]) -> None:
        self._append_many([event])

    def _append_many(self, events: list[dict[str, Any]], redacted: bool = False) -> None:
        stamps = self._stamps
        ts = stamps.now()  # one millisecond stamp serves the whole batch
        new_id, run_id = stamps.new_id, self.run_id
        redactor = None if redacted else self.redactor
        for event in events:
            if redactor is not None:
                redactor.event_in_place(event)
            if "id" not in event:
                event["id"] = new_id()
            if "ts" not in event:
                event["ts"] = ts
            if run_id:
                event["runId"] = run_id
        pending = self._pending
        was_empty = not pending
        pending += events
        if was_empty:
            self._oldest = time.monotonic()
        if len(pending) >= MAX_BATCH or (
                not was_empty and time.monotonic() - self._oldest >= MAX_AGE):
            self._kick()
            return
        if self._kick_handle is None:
            try:
                loop = self._loop or asyncio.get_running_loop()
            except RuntimeError:  # no loop (set-up code): write now
                self.flush()
                return
            self._loop = loop
            self._kick_handle = loop.call_soon(self._kick)

    def _kick(self) -> None:
        """Hand the pending events to the writer thread unless a batch is in flight."""
        if self._kick_handle is not None:
            self._kick_handle.cancel()
            self._kick_handle = None
        if self._in_flight is not None:
            if not self._in_flight.done():
                return  # the batch in flight kicks again when it lands
            # Landed but the loop has not run its callback yet (a burst keeps the loop
            # busy): take delivery here so batches keep flowing.
            self._landed(self._in_flight)
            return
        if not self._pending:
            return
        loop = self._loop
        if loop is None:
            self.flush()
            return
        batch, self._pending = self._pending, []
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="event-log")
        self._submitted += len(batch)
        self._flight_mark = self._submitted
        future = self._in_flight = self._writer.submit(self._write, batch)
        future.add_done_callback(lambda f: loop.call_soon_threadsafe(self._landed, f))

    def _write(self, batch: list[dict[str, Any]]) -> None:
        self.log.append_many(batch)
        self.log.flush()

    def _landed(self, future: Future[Any]) -> None:
        if self._in_flight is not future:
            return  # already taken delivery of
        self._in_flight = None
        if future.exception() is None:
            self._durable = max(self._durable, self._flight_mark)
        self._deliver()
        future.result()  # a write error surfaces here, in the loop
        if self._pending:
            self._kick()

    def flush(self) -> list[dict[str, Any]]:
        """Write everything emitted so far, durably, and fold it before returning."""
        if self._kick_handle is not None:
            self._kick_handle.cancel()
            self._kick_handle = None
        if self._in_flight is not None:
            with contextlib.suppress(Exception):
                self._in_flight.result()  # its error is raised by _landed
        batch, self._pending = self._pending, []
        self.log.append_many(batch)
        self.log.flush()
        self._submitted += len(batch)
        self._durable = self._submitted
        return self._deliver()

    async def settle(self) -> None:
        """What :meth:`flush` guarantees, awaited instead of blocking the loop: every event
        emitted so far is written, fsynced (per the log's durability) and folded.

        The writer thread does the work, so other agents keep streaming meanwhile.
        """
        target = self._submitted + len(self._pending)
        self._loop = self._loop or asyncio.get_running_loop()
        while self._durable < target:
            future = self._in_flight
            if future is None:
                self._kick()  # hands the pending events over
                future = self._in_flight
                if future is None:  # nothing to hand over (no loop, a failed write): here
                    self.flush()
                    return
            await asyncio.wait({asyncio.wrap_future(future)})
            self._landed(future)  # a write error is raised here, as flush raises it

    def absorb(self) -> None:
        """Pick up events other processes appended (bus posts), unless a write is busy."""
        if self._in_flight is None:
            self.log.absorb_external()
            self._deliver()

    def load(self, events: Iterable[dict[str, Any]],
             each: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Fold events already in the log (resuming); ``each`` sees every one of them."""
        projection = self._projection
        if each is not None:
            events = _each(events, each)
        projection.extend(events)
        if projection.state is not None:
            self.run_id = projection.state.get("id") or self.run_id

    @property
    def state(self) -> RunState:
        """The fold of every event written so far, as a model (cached between changes)."""
        if self._projection.state is None:
            raise RuntimeError("the run has no state yet (no run.created written)")
        return self._projection.model()

    @property
    def state_dict(self) -> State | None:
        """The folded state in wire form (exact, including activity times); do not mutate."""
        return self._projection.state

    def _deliver(self) -> list[dict[str, Any]]:
        """Fold the batches the log has written and tell the listeners, in order."""
        delivered: list[dict[str, Any]] = []
        while self._written:
            events = self._written.popleft()
            self._fold(events)
            delivered.extend(events)
        return delivered

    def _fold(self, events: list[dict[str, Any]]) -> None:
        now = time.monotonic()
        last_seen = self.last_seen
        for event in events:
            node_id = event.get("nodeId")
            if node_id:
                last_seen[node_id] = now
        self._projection.apply(events)
        for listener in list(self._listeners):
            listener(events)

    def close(self) -> None:
        """Write what is left, stop the writer thread and stop listening to the log."""
        with contextlib.suppress(Exception):
            self.flush()
        if self._writer is not None:
            self._writer.shutdown(wait=True)
        self._unsubscribe()


def _each(events: Iterable[dict[str, Any]], each: Callable[[dict[str, Any]], None]
          ) -> Iterable[dict[str, Any]]:
    for event in events:
        each(event)
        yield event
