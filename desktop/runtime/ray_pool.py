"""Idle Ray actors kept for the next agent run, so a turn does not pay for a new worker.

Ray starts a worker process for every new actor, which costs seconds (about 3.8 s of a
4.2 s turn, bench_cluster). The Ray docs' answer is to keep actors alive and reuse them
(an actor pool). An actor that hosted an agent run and closed it cleanly (its agent
ended, its folders removed) waits here, keyed by what it was placed with (cluster,
resources, runtime environment), and the next agent run with the same needs takes it.

An idle actor still holds its resources on the cluster, so the pool is small
(``MAX_IDLE`` per key), forgets actors idle longer than ``IDLE_SEC``, and gives up every
idle actor when a new one waits for room (:meth:`HostPool.release`). The actors belong to
this engine's process: when it ends, Ray ends them.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

MAX_IDLE = 4
"""Idle actors kept per key."""
IDLE_SEC = 120.0
"""An actor idle longer than this is ended instead of reused."""


def pool_key(address: str, options: dict[str, Any]) -> str:
    """What an actor was placed with: two agent runs with the same key can share it."""
    placed = {k: v for k, v in options.items() if k != "name"}
    return orjson.dumps([address, placed], option=orjson.OPT_SORT_KEYS).decode()


@dataclass
class HostPool:
    """Idle actors by key, newest last; thread-safe (engines may run in several loops)."""

    kill: Callable[[Any], None]
    """Ends an actor for good (``ray.kill``)."""
    clock: Callable[[], float] = time.monotonic
    _idle: dict[str, list[tuple[float, Any]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, key: str) -> Any | None:
        """An idle actor placed with ``key``, or None."""
        with self._lock:
            self._expire()
            idle = self._idle.get(key)
            return idle.pop()[1] if idle else None

    def give(self, key: str, actor: Any) -> None:
        """Keep a cleanly closed actor for the next agent run (or end it: pool full)."""
        with self._lock:
            self._expire()
            idle = self._idle.setdefault(key, [])
            if len(idle) >= MAX_IDLE:
                self._end(actor)
                return
            idle.append((self.clock(), actor))

    def release(self) -> int:
        """End every idle actor (their resources are wanted); how many there were."""
        with self._lock:
            actors = [a for idle in self._idle.values() for _, a in idle]
            self._idle.clear()
        for actor in actors:
            self._end(actor)
        return len(actors)

    def size(self) -> int:
        with self._lock:
            return sum(len(idle) for idle in self._idle.values())

    def _expire(self) -> None:
        now = self.clock()
        for key, idle in list(self._idle.items()):
            keep = [(t, a) for t, a in idle if now - t <= IDLE_SEC]
            for t, actor in idle:
                if now - t > IDLE_SEC:
                    self._end(actor)
            if keep:
                self._idle[key] = keep
            else:
                del self._idle[key]

    def _end(self, actor: Any) -> None:
        with contextlib.suppress(Exception):  # gone already: nothing to end
            self.kill(actor)
