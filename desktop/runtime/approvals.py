"""The approval broker: gated tool calls wait here until someone resolves them.

One broker serves a run. The terminal, the GUI and the API all resolve through
it; each request and each resolution is an event in the run's log
(``approval.requested`` / ``approval.resolved``), so a pending approval is
visible to every client and survives in the record.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop.contract.base import new_id, utc_now
from desktop.contract.enums import ApprovalStatus
from desktop.contract.events import Resolution, ToolCall

Emit = Callable[[dict[str, Any]], None]


class ApprovalError(LookupError):
    """An approval id that is unknown, ambiguous or already resolved."""


@dataclass
class PendingRequest:
    """A tool call waiting for a decision."""

    approval_id: str
    node_id: str | None
    tool: dict[str, Any]
    context: str | None
    requested_at: str = field(default_factory=utc_now)

    def to_dict(self) -> dict[str, Any]:
        """Wire form, like ``PendingApproval`` in the run state."""
        out: dict[str, Any] = {"approvalId": self.approval_id, "nodeId": self.node_id,
                               "tool": self.tool, "requestedAt": self.requested_at}
        if self.context:
            out["context"] = self.context
        return out


class ApprovalBroker:
    """Holds gated calls until :meth:`resolve`; tells subscribers about new requests."""

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self._pending: dict[str, PendingRequest] = {}
        self._futures: dict[str, asyncio.Future[Resolution]] = {}
        self._subscribers: list[Callable[[PendingRequest], None]] = []
        self._abort_reason = "turn ended"

    async def request(self, node_id: str | None, tool: ToolCall,
                      context: str | None = None) -> Resolution:
        """Emit ``approval.requested`` and wait for the decision."""
        approval_id = new_id()
        pending = PendingRequest(approval_id, node_id, tool.to_json_dict(), context)
        future: asyncio.Future[Resolution] = asyncio.get_running_loop().create_future()
        self._pending[approval_id] = pending
        self._futures[approval_id] = future
        event: dict[str, Any] = {"type": "approval.requested", "approvalId": approval_id,
                                 "nodeId": node_id, "tool": pending.tool}
        if context:
            event["context"] = context
        self._emit(event)
        for callback in list(self._subscribers):
            callback(pending)
        try:
            return await future
        finally:
            # A cancelled turn takes its request with it.
            if self._pending.pop(approval_id, None) is not None:
                self._futures.pop(approval_id, None)
                self._emit(_resolved(approval_id, node_id, Resolution(
                    status=ApprovalStatus.DENIED, reason=self._abort_reason, by="engine")))

    def pending(self) -> list[PendingRequest]:
        """Requests still waiting, oldest first."""
        return list(self._pending.values())

    def match(self, ref: str) -> str:
        """The full id of the pending approval ``ref`` names (an id or a unique prefix)."""
        if ref in self._pending:
            return ref
        hits = [a for a in self._pending if a.startswith(ref)]
        if len(hits) == 1:
            return hits[0]
        if not hits:
            raise ApprovalError(f"no pending approval matches {ref!r}")
        raise ApprovalError(f"{ref!r} matches {len(hits)} pending approvals; give more of the id")

    def resolve(self, approval_id: str, status: ApprovalStatus | str,
                modified_args: dict[str, Any] | None = None, reason: str | None = None,
                by: str = "terminal") -> Resolution:
        """Decide a pending call: emit ``approval.resolved`` and release its waiter."""
        approval_id = self.match(approval_id)
        status = ApprovalStatus(status)
        if status is ApprovalStatus.MODIFIED and not isinstance(modified_args, dict):
            raise ApprovalError("a modified call needs its new arguments as a JSON object")
        pending = self._pending.pop(approval_id)
        resolution = Resolution(status=status, modified_args=modified_args, reason=reason, by=by)
        self._emit(_resolved(approval_id, pending.node_id, resolution))
        future = self._futures.pop(approval_id)
        if not future.done():
            future.set_result(resolution)
        return resolution

    def deny_all(self, reason: str, by: str = "engine") -> None:
        """Deny every pending call; each agent hears the denial."""
        for approval_id in list(self._pending):
            self.resolve(approval_id, ApprovalStatus.DENIED, reason=reason, by=by)

    def abort_all(self, reason: str) -> None:
        """End every wait at once (the run stops): the waiting turns are cancelled, and
        each request is recorded as denied with ``reason``."""
        self._abort_reason = reason
        for future in list(self._futures.values()):
            future.cancel()

    def subscribe(self, callback: Callable[[PendingRequest], None]) -> Callable[[], None]:
        """Call ``callback`` on each new request; returns the unsubscribe function."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers \
            else None


def _resolved(approval_id: str, node_id: str | None, resolution: Resolution) -> dict[str, Any]:
    return {"type": "approval.resolved", "approvalId": approval_id, "nodeId": node_id,
            "resolution": resolution.to_json_dict()}


def policy_decision(emit: Emit, node_id: str | None, tool: ToolCall, reason: str,
                    status: ApprovalStatus = ApprovalStatus.DENIED) -> Resolution:
    """Record a decision the policy made at once (blocklist, PLANNING) as a resolved request."""
    approval_id = new_id()
    emit({"type": "approval.requested", "approvalId": approval_id, "nodeId": node_id,
          "tool": tool.to_json_dict(), "context": reason})
    resolution = Resolution(status=status, reason=reason, by="policy")
    emit(_resolved(approval_id, node_id, resolution))
    return resolution
