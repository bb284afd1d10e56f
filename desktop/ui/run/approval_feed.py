"""Everything the service waits on a person for, across all its live runs, kept current for
a window: the pending approvals, and the stalls and failed turns the run list names.

The service answers ``GET /api/approvals`` with every pending approval of every live run,
each with its ``runId``; the feed asks it as :class:`ServicePoll` does (every few seconds
while its window is on screen), and at once when a decision was sent. A run the feed has
not met yet is asked for once (``GET /api/runs/{id}``) for its name and node labels. The
run list comes with the same asking (with its ETag: a 304 while nothing changed); each live
run's ``waiting`` entries become :attr:`ApprovalFeed.waiting`.

No service running means no live run, so nothing waits: the feed never starts one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

from desktop.api.api_error import ApiError
from desktop.ui.run.service_poll import ASK_TIMEOUT, POLL_MS, ServicePoll

if TYPE_CHECKING:
    from desktop.api.client import ApiClient

log = logging.getLogger(__name__)


class RunInfo:
    """What the inbox says about a run it did not open: its name and its node labels."""

    def __init__(self, name: str = "", labels: dict[str, str] | None = None) -> None:
        self.name = name
        self.labels = labels or {}


Answer = tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], list[dict[str, Any]]]
"""What one asking takes: the pending approvals, what else waits (both by key), and the
run list."""


def waiting_items(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The stalls and failed turns of the live runs of a run list, by a key of their own
    (``stall:RUN:NODE``, ``failed:RUN:NODE``)."""
    out = {}
    for run in runs:
        if not run.get("live"):
            continue
        for item in run.get("waiting") or ():
            key = f"{item.get('kind')}:{run['id']}:{item.get('nodeId') or ''}"
            out[key] = {**item, "runId": str(run["id"]),
                        "workflowName": str(run.get("workflowName") or ""),
                        "since": str(run.get("updatedAt") or "")}
    return out


class ApprovalFeed(ServicePoll):
    """The service's pending approvals (``items``: approval id -> request with ``runId``),
    and what else waits in its live runs (``waiting``: key -> a stall or a failed turn,
    with ``runId``, ``workflowName`` and ``since``)."""

    changed = Signal()

    def __init__(self, data_dir: Callable[[], Path], window: QWidget,
                 parent: QObject | None = None, interval_ms: int = POLL_MS) -> None:
        super().__init__(data_dir, window, parent, interval_ms)
        self.items: dict[str, dict[str, Any]] = {}
        self.waiting: dict[str, dict[str, Any]] = {}
        self.listed: list[dict[str, Any]] = []  # the service's run list, as last answered
        self.runs: dict[str, RunInfo] = {}
        self._runs_etag: str | None = None
        self.answers = 0  # how many times the service answered (the first: what was there)

    async def _ask(self) -> Answer | None:
        return await self._asking_service(self._everything, ({}, {}, []))

    async def _everything(self, client: ApiClient) -> Answer:
        items = {str(a["approvalId"]): a for a in await client.approvals()}
        for run_id in {str(a.get("runId")) for a in items.values()} - set(self.runs):
            self.runs[run_id] = await self._run_info(client, run_id)
        runs, self._runs_etag = await client.list_runs_since(self._runs_etag)
        if runs is None:  # unchanged since the last answer
            return items, self.waiting, self.listed
        return items, waiting_items(runs), runs

    @staticmethod
    async def _run_info(client: ApiClient, run_id: str) -> RunInfo:
        try:
            state = await client.get_run(run_id)
        except ApiError:
            return RunInfo()
        labels = {nid: str(n.get("label") or nid[:8])
                  for nid, n in (state.get("nodes") or {}).items()}
        return RunInfo(str(state.get("workflowName") or ""), labels)

    def _took(self, answer: Answer) -> None:
        items, waiting, listed = answer
        self.answers += 1
        if (items, waiting, listed) != (self.items, self.waiting, self.listed):
            self.items, self.waiting, self.listed = items, waiting, listed
            self.changed.emit()

    # --- deciding ---------------------------------------------------------------------------

    def resolve(self, approval_id: str, status: str, args: dict | None = None,
                reason: str | None = None, merge: dict | None = None,
                choice: int | None = None) -> asyncio.Task:
        """Send a decision straight to the service (the run need not be open anywhere);
        the task's result is True when the service took it."""
        task = asyncio.ensure_future(self._resolve(approval_id, status, args, reason, merge,
                                                   choice))
        self._keep(task)
        return task

    async def _resolve(self, approval_id: str, status: str, args: dict | None,
                       reason: str | None, merge: dict | None,
                       choice: int | None = None) -> bool:
        info = self.service()
        if info is None:
            return False
        client = info.client(timeout=ASK_TIMEOUT)
        try:
            await client.resolve(approval_id, status, modified_args=args, reason=reason,
                                 merge=merge, choice=choice)
        except ApiError as exc:
            log.info("approval %s not resolved: %s", approval_id, exc)
            return False
        finally:
            await client.close()
        if isValid(self):
            self.items.pop(approval_id, None)
            self.changed.emit()
            self.refresh()
        return True
