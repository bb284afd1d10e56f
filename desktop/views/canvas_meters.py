"""The budget meters of a run's node cards, kept from one canvas update to the next.

A canvas update (one frame of events folded by the run's
:class:`~desktop.views.state.RunProjection`) recomputes the meters of the nodes the
batches folded since the previous update touched (usage reported, a turn started or
ended, a budget changed, the run paused on a node's budget or went on), not every node's.
The meter of a running turn under a time limit moves with the clock instead: those are
recounted once the clock has moved a step (a second) since their last count, by the
update or by the canvas's clock (:meth:`CanvasMeters.tick`), whichever comes first. Any
state the projection cannot vouch for (another projection's, a replayed moment's, one
reset or gone past the kept batches) is recomputed whole.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from desktop.views.budget_meter import Meter, node_meter, ticking
from desktop.views.state import RunProjection

CLOCK_STEP = timedelta(seconds=1)
"""How far the clock moves before a canvas update recounts the time-limited meters (the
canvas recounts its relative times as often)."""


class CanvasMeters:
    """Node id -> the budget meter its card shows (None: no meter line), for one canvas."""

    def __init__(self, step: timedelta = CLOCK_STEP) -> None:
        self.meters: dict[str, Meter | None] = {}
        self.step = step
        self._state: dict[str, Any] | None = None  # the state the meters were made from
        self._source: RunProjection | None = None
        self._mark = 0  # the source's mark when they were
        self._counted: datetime | None = None  # when the time-limited ones were counted

    def update(self, state: dict[str, Any] | None, source: RunProjection | None,
               now: datetime) -> set[str]:
        """Bring the meters up to ``state`` (folded by ``source``, when it was) at ``now``;
        returns the ids of the nodes whose meter was recomputed."""
        nodes = (state or {}).get("nodes") or {}
        known = source is not None and source is self._source and state is self._state \
            and state is source.state
        due = source.touched_since(self._mark) if known and source is not None else None
        self._state, self._source = state, source
        self._mark = source.mark if source is not None else 0
        if due is None:
            self.meters = {n: node_meter(state, n, now) for n in nodes}
            self._counted = now
            return set(nodes)
        if self._counted is None or not self._counted <= now < self._counted + self.step:
            due.update(ticking(state))  # the clock moved on (or back, replaying)
            self._counted = now
        meters = self.meters
        for node_id in due:
            if node_id in nodes:
                meters[node_id] = node_meter(state, node_id, now)
            else:
                meters.pop(node_id, None)  # deleted
        return due

    def tick(self, state: dict[str, Any] | None, now: datetime) -> list[str]:
        """Recount the meters that move with the clock (a running turn under a time limit)
        at ``now``; returns their node ids."""
        if state is not self._state:
            return []  # an update for this state comes first
        nodes = (state or {}).get("nodes") or {}
        found = [n for n in ticking(state) if n in nodes]
        for node_id in found:
            self.meters[node_id] = node_meter(state, node_id, now)
        self._counted = now
        return found

    def clear(self) -> None:
        """Forget every meter (the run was closed): the next update makes them all."""
        self.meters = {}
        self._state, self._source, self._mark, self._counted = None, None, 0, None
