"""Each run's durable batches, handed out to its stream clients a tick at a time.

In a burst the engine makes a batch durable every millisecond or so. Handing each one
to every client costs a frame per batch per client: a socket write in the service and a
message for the client to parse, for 20 clients twenty writes per batch on the engine's
loop. So the batches of a run that become durable within :data:`HAND_OUT_EVERY` of its
last hand-out are gathered and handed out together, as one :class:`Batch` encoded once
for all its clients. A quiet stream is not held back: the first batch after a pause goes
out on the loop's next turn. Order is kept (batches are gathered in the order they are
published), and a client's rules about holes and overlaps (desktop/api/stream.py) apply
to a gathered batch as to any other. The frames handed out stay in the run's
:class:`~desktop.api.history.FrameHistory` while it has clients, so a client that falls
behind or reconnects is sent them again without encoding them again.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

from desktop.api.history import FrameHistory
from desktop.api.stream import Batch, StreamClient

HAND_OUT_EVERY = 0.005
"""Seconds between two hand-outs of one run's batches, at the least."""
KEEP_FOR = 10.0
"""Seconds a run's kept frames outlast its last client (when a burst leaves every client
behind, all are closed as too slow at once and reconnect within a moment)."""


class RunFrames:
    """One run's kept frames, looked up afresh each time (they may be dropped)."""

    def __init__(self, histories: dict[str, FrameHistory], run_id: str) -> None:
        self._histories = histories
        self._run_id = run_id

    def after(self, seq: int) -> tuple[bytes, int] | None:
        history = self._histories.get(self._run_id)
        return history.after(seq) if history is not None else None

    def next_start(self, seq: int) -> int | None:
        history = self._histories.get(self._run_id)
        return history.next_start(seq) if history is not None else None


class Feeds:
    """Fans each run's durable batches out to its stream clients."""

    def __init__(self, every: float = HAND_OUT_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self._clients: dict[str, set[StreamClient]] = {}
        self._gathered: dict[str, list[list[dict[str, Any]]]] = {}
        self._timers: dict[str, asyncio.Handle] = {}
        self._handed: dict[str, float] = {}
        self._history: dict[str, FrameHistory] = {}
        self._forget: dict[str, asyncio.TimerHandle] = {}
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hand out on ``loop`` (the one its clients' sockets belong to)."""
        self._loop = loop
        self._thread = threading.get_ident()

    def _off_loop(self, call: Callable[..., None], *args: Any) -> bool:
        """True when called from another thread than the loop's: ``call(*args)`` is then
        queued on the loop (FIFO, so batches keep their order)."""
        if self._thread is None or threading.get_ident() == self._thread:
            return False
        assert self._loop is not None
        self._loop.call_soon_threadsafe(call, *args)
        return True

    def join(self, run_id: str, client: StreamClient) -> Callable[[], None]:
        """Add ``client`` to ``run_id``'s feed; returns the function that removes it."""
        self._clients.setdefault(run_id, set()).add(client)
        forget = self._forget.pop(run_id, None)
        if forget is not None:
            forget.cancel()

        def leave() -> None:
            clients = self._clients.get(run_id)
            if clients is not None:
                clients.discard(client)
                if not clients:
                    del self._clients[run_id]
                    self._drop(run_id, keep_frames=True)

        return leave

    def publish(self, run_id: str, events: list[dict[str, Any]]) -> None:
        """Gather a batch for every client of ``run_id``; callable from any thread."""
        if self._off_loop(self.publish, run_id, events):  # a log writer's, the engines'
            return
        if not events or not self._clients.get(run_id):
            return
        gathered = self._gathered.get(run_id)
        if gathered is not None:
            gathered.append(events)
            return
        self._gathered[run_id] = [events]
        loop = self._loop
        if loop is None:  # not serving (tests of the feed alone): hand out now
            self._hand_out(run_id)
            return
        wait = self._handed.get(run_id, -self.every) + self.every - self.clock()
        self._timers[run_id] = (loop.call_later(wait, self._hand_out, run_id) if wait > 0
                                else loop.call_soon(self._hand_out, run_id))

    def _hand_out(self, run_id: str) -> None:
        self._timers.pop(run_id, None)
        gathered = self._gathered.pop(run_id, None)
        clients = self._clients.get(run_id)
        if not gathered or not clients:
            return
        self._handed[run_id] = self.clock()
        events = gathered[0] if len(gathered) == 1 else list(
            itertools.chain.from_iterable(gathered))
        batch = Batch(events)
        history = self._history.get(run_id)
        if history is None:
            history = self._history[run_id] = FrameHistory()
        history.add(batch)  # encodes it: its clients need the frames anyway
        for client in list(clients):
            client.offer(batch)

    def _drop(self, run_id: str, keep_frames: bool = False) -> None:
        """Forget ``run_id``'s gathered batches and its timer (it has no client left), and
        its kept frames now or, with ``keep_frames``, after :data:`KEEP_FOR`."""
        timer = self._timers.pop(run_id, None)
        if timer is not None:
            timer.cancel()
        self._gathered.pop(run_id, None)
        self._handed.pop(run_id, None)
        forget = self._forget.pop(run_id, None)
        if forget is not None:
            forget.cancel()
        if keep_frames and run_id in self._history and self._loop is not None \
                and not self._closed:
            self._forget[run_id] = self._loop.call_later(KEEP_FOR, self._forget_frames,
                                                         run_id)
        else:
            self._history.pop(run_id, None)

    def _forget_frames(self, run_id: str) -> None:
        self._forget.pop(run_id, None)
        self._history.pop(run_id, None)

    def kept(self, run_id: str) -> RunFrames:
        """The frames of ``run_id`` handed out lately, as its clients look them up."""
        return RunFrames(self._history, run_id)

    @property
    def pending(self) -> int:
        """Runs with batches gathered and not yet handed out (tests, diagnostics)."""
        return len(self._timers)

    @property
    def kept_runs(self) -> int:
        """Runs whose handed-out frames are kept (tests, diagnostics)."""
        return len(self._history)

    def count(self, run_id: str) -> int:
        return len(self._clients.get(run_id, ()))

    def close_run(self, run_id: str, code: int, message: str) -> None:
        """Close every stream of ``run_id`` with ``code``; callable from any thread."""
        try:
            if self._off_loop(self.close_run, run_id, code, message):
                return
        except RuntimeError:  # the server's loop is gone: so are its streams
            return
        self._drop(run_id)
        for client in list(self._clients.get(run_id, ())):
            client.close(code, message)

    def close_all(self, code: int, message: str) -> None:
        """Close every stream (the service is stopping) and forget every kept frame."""
        self._closed = True
        for run_id in list(self._clients):
            self.close_run(run_id, code, message)
        for run_id in list(self._forget):
            self._drop(run_id)
