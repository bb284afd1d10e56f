"""The run state as a projection of its events, folded batch by batch.

The store's reducer is the one fold function; :class:`RunProjection` holds its wire-form
result, applies each batch of events as it arrives (engine, GUI, service alike) and
builds the validated :class:`~desktop.contract.state.RunState` only when asked, once
per change, reusing the models of entries that did not change. It also keeps which nodes
the last few batches touched, so a view derived per node (the canvas's budget meters)
redoes only those.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from itertools import islice

from desktop.contract.state import RunState
from desktop.store.reducer import State, apply_events, state_dict
from desktop.views.state_model import StateModels

_CHUNK = 4096
KEPT_BATCHES = 64
"""Batches whose touched nodes are kept: a view that missed more starts over."""


def node_labels(state: dict | None) -> dict[str, str]:
    """Node id -> the name a view shows for it (wire-form state): its label, else the start
    of its id."""
    nodes = (state or {}).get("nodes") or {}
    return {node_id: (node or {}).get("label") or node_id[:8] for node_id, node in nodes.items()}


class RunProjection:
    """The folded state of one run; feed it events in seq order with :meth:`apply`."""

    def __init__(self, state: RunState | State | None = None) -> None:
        self.state: State | None = state_dict(state) if isinstance(state, RunState) else state
        self._model: RunState | None = state if isinstance(state, RunState) else None
        self._clock_moved = False  # streaming events folded since the model was built
        self._models = StateModels()
        self._batch = 0  # batches that touched a node, counted since the projection began
        self._known_from = 0  # the batch the state was last reset at: no record before it
        self._touched: deque[tuple[int, set[str]]] = deque(maxlen=KEPT_BATCHES)

    @classmethod
    def of(cls, events: Iterable[dict], state: RunState | State | None = None
           ) -> RunProjection:
        """A projection of ``events`` folded onto ``state`` (or onto nothing)."""
        projection = cls(state)
        projection.extend(events)
        return projection

    @property
    def last_seq(self) -> int:
        """The seq of the last event folded (0 before any)."""
        return int(self.state.get("lastSeq", 0)) if self.state is not None else 0

    def apply(self, events: Iterable[dict]) -> bool:
        """Fold a batch; True when more than the clock and activity times may have changed."""
        touched: set[str] = set()
        self.state, changed = apply_events(self.state, events, touched)
        if touched:
            self._batch += 1
            self._touched.append((self._batch, touched))
        if changed:
            self._model = None
        elif self._model is not None:
            self._clock_moved = True
        return changed

    def extend(self, events: Iterable[dict]) -> None:
        """Fold a long stream of events (a log being read) in bounded batches."""
        it = iter(events)
        while chunk := list(islice(it, _CHUNK)):
            self.apply(chunk)

    def reset(self, state: RunState | State | None = None) -> None:
        """Start again from ``state``."""
        self.state = state_dict(state) if isinstance(state, RunState) else state
        self._model = state if isinstance(state, RunState) else None
        self._clock_moved = False
        self._batch += 1
        self._known_from = self._batch
        self._touched.clear()

    @property
    def mark(self) -> int:
        """Where the record of touched nodes stands: pass it to :meth:`touched_since`."""
        return self._batch

    def touched_since(self, mark: int) -> set[str] | None:
        """The ids of the nodes whose entries (node, config, usage, running turn, inbox)
        the batches folded after ``mark`` may have changed; None when that is not known
        (the state was reset since, or more batches came than are kept), so the caller
        redoes every node."""
        if mark < self._known_from or mark > self._batch:
            return None
        if mark == self._batch:
            return set()
        if self._touched[0][0] > mark + 1:
            return None  # the oldest batches after the mark were dropped
        found: set[str] = set()
        for batch, nodes in reversed(self._touched):
            if batch <= mark:
                break
            found |= nodes
        return found

    def model(self, *, with_clock: bool = False) -> RunState:
        """The state as a validated model (cached until a batch changes it).

        Streaming events (deltas, heartbeats, logs) move only the clock, ``lastSeq`` and
        activity times; they do not rebuild the cached model unless ``with_clock`` asks
        for a model that includes them. Raises ValueError while no event has given the
        run a state.
        """
        if self.state is None:
            raise ValueError("the run has no state yet (no usable run.created)")
        if self._model is None or (with_clock and self._clock_moved):
            self._model = self._models.build(self.state)
            self._clock_moved = False
        return self._model
