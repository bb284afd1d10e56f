"""The run state as a projection of its events, folded batch by batch.

The store's reducer is the one fold function; :class:`RunProjection` holds its wire-form
result, applies each batch of events as it arrives (engine, GUI, service alike) and
builds the validated :class:`~desktop.contract.state.RunState` only when asked, once
per change, reusing the models of entries that did not change.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice

from desktop.contract.state import RunState
from desktop.store.reducer import State, apply_events, state_dict
from desktop.views.state_model import StateModels

_CHUNK = 4096


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
        self.state, changed = apply_events(self.state, events)
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
