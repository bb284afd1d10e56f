"""The one asyncio loop of the GUI (qasync on the QApplication): widgets and API client."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import socket
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import qasync
import shiboken6
from PySide6.QtCore import QObject, QSocketNotifier
from PySide6.QtWidgets import QApplication


class GuiLoop(qasync.QEventLoop):
    """qasync's loop, woken from other threads through a socket, not a Qt signal.

    The engine no longer runs in the GUI process (the service runs it), but any
    executor job (a DNS lookup of a host name, say) wakes the loop with
    ``call_soon_threadsafe``. qasync does that by emitting a Qt signal from the
    foreign thread, which crashed the process now and then under load. Here the
    thread only queues the callback and writes a byte to a socket; a socket notifier
    on the GUI thread runs the queue, the way asyncio's own loops do it.
    """

    def __init__(self, app: QApplication) -> None:
        super().__init__(app, already_running=False)
        self._pending: collections.deque[asyncio.Handle] = collections.deque()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._notifier = QSocketNotifier(self._wake_r.fileno(), QSocketNotifier.Type.Read)
        self._notifier.activated.connect(self._run_pending)
        # nothing in the GUI hands work to threads on purpose; a library's rare executor
        # job (a DNS lookup) gets one worker, which wakes the loop through the socket
        self.set_default_executor(ThreadPoolExecutor(max_workers=1,
                                                     thread_name_prefix="gui-io"))

    def call_soon_threadsafe(self, callback: Any, *args: Any,
                             context: Any = None) -> asyncio.Handle:
        handle = asyncio.Handle(callback, args, self, context)
        self._pending.append(handle)
        with contextlib.suppress(BlockingIOError, OSError):  # a byte is already waiting
            self._wake_w.send(b"\0")
        return handle

    def _run_pending(self, *_: Any) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            while self._wake_r.recv(4096):
                pass
        while self._pending:
            handle = self._pending.popleft()
            if not handle.cancelled():
                handle._run()

    def close(self) -> None:
        if self.is_closed():
            return
        self._notifier.setEnabled(False)
        self._run_pending()
        super().close()
        self._release_qt_objects()
        self._wake_r.close()
        self._wake_w.close()

    def _release_qt_objects(self) -> None:
        """Kill the loop's Qt timers and delete its Qt objects here, on the GUI thread.

        qasync starts a Qt timer per scheduled callback and does not stop it on
        close. A closed loop sits in reference cycles, so the cyclic collector frees
        it on whatever thread allocates next; when that was a worker thread, Qt
        freed the timer object there while its timers stayed registered, and the
        next one due crashed the GUI thread (see DESIGN.md, "Processes"). Deleting
        everything now leaves only empty Python wrappers for a later collection.
        """
        timer = self._timer
        callbacks = getattr(timer, "_SimpleTimer__callbacks", {})
        for timer_id in list(callbacks):
            timer.killTimer(timer_id)
        callbacks.clear()
        signaller = getattr(self, "_QEventLoop__call_soon_signaller", None)
        for obj in (timer, self._notifier, signaller):
            if isinstance(obj, QObject) and shiboken6.isValid(obj):
                shiboken6.delete(obj)


def new_event_loop(app: QApplication) -> GuiLoop:
    """The loop of the app (see :class:`GuiLoop`)."""
    return GuiLoop(app)
