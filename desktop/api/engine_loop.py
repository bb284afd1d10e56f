"""The loop the service's engines run on: a thread of its own, so that what its clients
cost (HTTP requests, and above all the WebSocket fan-out: a frame written to every
client of a run, every few milliseconds) is done on the server's loop, never on the
engines'.

Requests reach the engines through :meth:`EngineLoop.run`: the coroutine runs on the
engines' loop and its result (or error) comes back to the caller's; a request cancelled
(its client gone) cancels the coroutine there too. Events come the other way through
:class:`~desktop.api.feeds.Feeds`, which hands a batch published from any thread to the
server's loop. Without an engine loop (:data:`SAME_LOOP`, the API tests' own arrangement
of old) the coroutine is simply awaited where it is.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Runs(Protocol):
    """Where a request's work on the engines is done."""

    async def run(self, work: Awaitable[T]) -> T: ...

    async def call(self, fn: Callable[..., T], *args: Any) -> T: ...


class SameLoop:
    """The engines share the server's loop: the work is awaited in place."""

    async def run(self, work: Awaitable[T]) -> T:
        return await work

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        return fn(*args)


SAME_LOOP = SameLoop()


class EngineLoop:
    """An asyncio loop on a thread of its own, for the service's engines."""

    def __init__(self, name: str = "engines") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        loop = self.loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
            # stopped (close): end what is left, as asyncio.run does, on this thread
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()

    async def run(self, work: Awaitable[T]) -> T:
        """``work`` (a coroutine) run on the engines' loop; its result here."""
        done = asyncio.run_coroutine_threadsafe(_awaited(work), self.loop)
        return await asyncio.wrap_future(done)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` called on the engines' loop (it reads what only that loop may
        change); its result here."""
        return await self.run(_called(fn, *args))

    def close(self) -> None:
        """Stop the loop (the service shut its engines down first), end what is left on
        it and close it; returns once its thread has."""
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join()


async def _awaited(work: Awaitable[T]) -> T:
    return await work


async def _called(fn: Callable[..., T], *args: Any) -> T:
    return fn(*args)
