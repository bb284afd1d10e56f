"""Which node takes a turn next.

A node is ready when its inbox holds something and no turn of it is running.
Ready nodes are ordered by their oldest inbox item (the ``seq`` of its
``inbox.queued`` event), so stepping is first-in first-out. AUTO starts every
ready node up to the concurrency limit; INTERACTIVE starts only what
:meth:`Scheduler.request_step` asked for.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from desktop.contract.enums import Mode, RunStatus
from desktop.contract.state import RunState

DEFAULT_CONCURRENCY = 4


class StepError(ValueError):
    """A step that cannot be taken now (nothing pending, node busy)."""


class Scheduler:
    """Turn order and INTERACTIVE step requests."""

    def __init__(self, concurrency: int = DEFAULT_CONCURRENCY) -> None:
        self.concurrency = max(1, concurrency)
        self._order: dict[str, int] = {}
        self._steps: deque[str | None] = deque()

    def observe(self, event: dict[str, Any]) -> None:
        """Remember when each inbox item was queued."""
        if event.get("type") == "inbox.queued":
            item = event.get("item") or {}
            if "id" in item:
                self._order.setdefault(item["id"], int(event.get("seq") or 0))

    def was_queued(self, item_id: str) -> bool:
        """Whether an inbox item with ``item_id`` was ever queued in this run."""
        return item_id in self._order

    def ready(self, state: RunState, busy: set[str]) -> list[str]:
        """Nodes that could start a turn now, oldest waiting item first."""
        nodes = []
        for node_id, items in state.inboxes.items():
            if not items or node_id in busy or node_id in state.running_turns:
                continue
            if node_id not in state.nodes:
                continue
            first = min(self._order.get(i.id, 1 << 62) for i in items)
            nodes.append((first, node_id))
        return [node_id for _, node_id in sorted(nodes)]

    def pending_steps(self) -> int:
        """Step requests not yet taken."""
        return len(self._steps)

    def request_step(self, state: RunState, busy: set[str], node_id: str | None) -> str:
        """Queue one INTERACTIVE step; returns the node that will take it."""
        ready = [n for n in self.ready(state, busy) if n not in self._steps]
        if node_id is None:
            if not ready:
                raise StepError("no turn is pending: every inbox is empty or its node is busy")
            chosen = ready[0]
        else:
            if node_id in busy or node_id in state.running_turns:
                raise StepError("that node is already taking a turn")
            if not state.inboxes.get(node_id):
                raise StepError("that node has nothing in its inbox")
            if node_id in self._steps:
                raise StepError("a step of that node is already queued")
            chosen = node_id
        self._steps.append(chosen)
        return chosen

    def clear_steps(self) -> None:
        """Forget queued steps (the run stopped or switched to AUTO)."""
        self._steps.clear()

    def pick(self, state: RunState, busy: set[str],
             waiting: set[str] | frozenset[str] = frozenset()) -> list[str]:
        """Nodes to start now; consumes the step requests it satisfies. Busy nodes that
        are ``waiting`` on another node's turn hold no slot."""
        if state.status != RunStatus.RUNNING or state.stall:
            return []
        slots = self.concurrency - len(busy - waiting)
        if slots <= 0:
            return []
        ready = self.ready(state, busy)
        if state.mode == Mode.AUTO:
            self._steps.clear()
            return ready[:slots]
        chosen = []
        for node_id in list(self._steps):
            if len(chosen) >= slots:
                break
            self._steps.remove(node_id)
            if node_id in ready:
                chosen.append(node_id)
        return chosen
