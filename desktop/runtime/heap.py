"""The garbage collector of a process that hosts engines: set-up objects out of its sight.

A streaming run allocates a few containers per event and frees nearly all of them by
reference counting, but the collector's full (generation 2) pass walks every object the
process holds: modules, pydantic schemas, the workflow, the engine. In an engine process
built for fifty agents that pass took 28 ms of CPU, during which the loop reads no
agent (bench/RESULTS.md, bench_runtime). Once a process has loaded and built what it
runs with, :func:`settle` collects once and freezes what is left (``gc.freeze``): those
objects stay alive as before, but no later pass walks them, and the next full pass waits
until a quarter as many objects as were frozen have survived into the oldest generation.

Called by the entry points that run engines (``agent-canvas run`` / ``resume`` before
the engine starts, ``agent-canvas serve`` once it listens), never by library code: a
frozen object that later becomes unreachable in a reference cycle is never freed, which
is fine for what a process builds once and keeps, not for what a run builds and drops.
"""

from __future__ import annotations

import gc


def settle() -> int:
    """Collect, then freeze every object alive now; the number of objects frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
