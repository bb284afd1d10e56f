"""The approval broker: gated tool calls, and merges that conflict, wait here until someone
resolves them.

One broker serves a run. The terminal, the GUI and the API all resolve through
it; each request and each resolution is an event in the run's log
(``approval.requested`` / ``approval.resolved``), so a pending approval is
visible to every client and survives in the record. A ``merge`` approval
(desktop/contract/merge.py) is approved with a :class:`MergeChoice` that covers
every conflicting file, or hands them to the agent; it is never ``modified``. A
``choice`` approval (desktop/contract/attempts.py) is approved with the index of the
attempt that goes on; plain ``approved`` takes the first attempt that succeeded.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from desktop.contract.attempts import ChoiceRequest
from desktop.contract.base import new_id, utc_now
from desktop.contract.enums import ApprovalKind, ApprovalStatus
from desktop.contract.events import Resolution, ToolCall
from desktop.contract.merge import MergeChoice, has_conflict_markers

Emit = Callable[[dict[str, Any]], None]
ENDED_MEMORY = 1000
"""How many ended requests a broker remembers, to say why an answer comes too late."""


class ApprovalError(LookupError):
    """An approval id that is unknown, ambiguous or already resolved."""


class ApprovalInvalid(ValueError):
    """A decision that does not fit its approval; ``field`` names what is wrong."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass
class PendingRequest:
    """A tool call, or a merge that conflicts, waiting for a decision."""

    approval_id: str
    node_id: str | None
    tool: dict[str, Any]
    context: str | None
    requested_at: str = field(default_factory=utc_now)
    merge: dict[str, Any] | None = None
    """Set for a ``merge`` approval: the MergeRequest (desktop/contract/merge.py)."""
    choice: dict[str, Any] | None = None
    """Set for a ``choice`` approval: the ChoiceRequest (desktop/contract/attempts.py)."""

    @property
    def kind(self) -> ApprovalKind:
        if self.merge is not None:
            return ApprovalKind.MERGE
        return ApprovalKind.CHOICE if self.choice is not None else ApprovalKind.TOOL

    def to_dict(self) -> dict[str, Any]:
        """Wire form, like ``PendingApproval`` in the run state."""
        out: dict[str, Any] = {"approvalId": self.approval_id, "nodeId": self.node_id,
                               "requestedAt": self.requested_at}
        if self.merge is not None:
            out.update(kind=ApprovalKind.MERGE.value, merge=self.merge)
        elif self.choice is not None:
            out.update(kind=ApprovalKind.CHOICE.value, choice=self.choice)
        else:
            out["tool"] = self.tool
        if self.context:
            out["context"] = self.context
        return out


def check_merge_choice(request: dict[str, Any], status: ApprovalStatus,
                       choice: dict[str, Any] | None) -> dict[str, Any] | None:
    """The choice of a ``merge`` approval's decision in wire form (None when denied);
    ApprovalInvalid when it does not fit the request (a file it does not name, a file
    left without a side, the agent where it cannot take the merge)."""
    if status is ApprovalStatus.DENIED:
        return None
    if status is ApprovalStatus.MODIFIED:
        raise ApprovalInvalid("a merge is approved (with merge: a side per file, edited "
                              "contents, or the agent) or denied, not modified", "status")
    if choice is None:
        raise ApprovalInvalid("say how to resolve the merge: merge.files (ours or theirs per "
                              "file), merge.contents (a file's text), or merge.agent", "merge")
    try:
        made = MergeChoice.model_validate(choice)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(["merge", *(str(p) for p in first["loc"])])
        raise ApprovalInvalid(f"{where}: {first['msg']}", where) from None
    conflicted = [str(f.get("path")) for f in request.get("files") or []]
    listing = ", ".join(conflicted)
    for group in ("files", "contents"):
        for path in getattr(made, group):
            if path not in conflicted:
                raise ApprovalInvalid(f"{path!r} is not one of the conflicting files "
                                      f"({listing})", f"merge.{group}")
    marked = sorted(path for path, text in made.contents.items() if has_conflict_markers(text))
    if marked:
        raise ApprovalInvalid(f"the contents of {marked[0]!r} still have conflict markers "
                              "(<<<<<<<, |||||||, =======, >>>>>>>); edit them out, or take "
                              "a side", f"merge.contents.{marked[0]}")
    both = sorted(set(made.files) & set(made.contents))
    if both:
        raise ApprovalInvalid(f"{both[0]!r} has both a side and contents; give one",
                              "merge.contents")
    missing = [p for p in conflicted if p not in made.files and p not in made.contents]
    if made.agent and not request.get("agent", True):
        raise ApprovalInvalid("another merge of this turn already goes to the agent; take a "
                              "side or give the contents of each file", "merge.agent")
    if missing and not made.agent:
        raise ApprovalInvalid(f"no side or contents for {', '.join(missing)} (or hand them "
                              "to the agent: merge.agent)", "merge.files")
    return made.to_json_dict()


def check_choice(request: dict[str, Any], status: ApprovalStatus,
                 choice: int | None) -> int | None:
    """The attempt a ``choice`` approval's decision picks (None when denied); approved
    without an index takes the first attempt that succeeded. ApprovalInvalid when the
    index names no attempt that can win."""
    if status is ApprovalStatus.DENIED:
        return None
    if status is ApprovalStatus.MODIFIED:
        raise ApprovalInvalid("a choice is approved with the attempt that goes on "
                              "(choice: its index) or denied, not modified", "status")
    winners = ChoiceRequest.model_validate(request).choosable()
    if choice is None:
        if not winners:
            raise ApprovalInvalid("no attempt succeeded; deny the choice", "choice")
        return winners[0]
    if type(choice) is not int or choice not in winners:
        listing = ", ".join(str(i) for i in winners) or "none"
        raise ApprovalInvalid(f"attempt {choice!r} cannot win; choose one of the attempts "
                              f"that succeeded: {listing}", "choice")
    return choice


class ApprovalBroker:
    """Holds gated calls until :meth:`resolve`; tells subscribers about new requests."""

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self._pending: dict[str, PendingRequest] = {}
        self._futures: dict[str, asyncio.Future[Resolution]] = {}
        self._subscribers: list[Callable[[PendingRequest], None]] = []
        self._abort_reason = "turn ended"
        self._ended: OrderedDict[str, str] = OrderedDict()

    async def request(self, node_id: str | None, tool: ToolCall,
                      context: str | None = None) -> Resolution:
        """Emit ``approval.requested`` and wait for the decision."""
        return await self._ask(PendingRequest(new_id(), node_id, tool.to_json_dict(), context))

    async def request_merge(self, node_id: str | None, merge: dict[str, Any],
                            context: str | None = None) -> Resolution:
        """Ask how to resolve a merge that conflicts (``merge``: a MergeRequest in wire
        form) and wait for the decision."""
        return await self._ask(PendingRequest(new_id(), node_id, {}, context, merge=merge))

    async def request_choice(self, node_id: str | None, choice: dict[str, Any],
                             context: str | None = None) -> Resolution:
        """Ask which attempt of a best-of-N turn goes on (``choice``: a ChoiceRequest in
        wire form) and wait for the decision."""
        return await self._ask(PendingRequest(new_id(), node_id, {}, context, choice=choice))

    async def _ask(self, pending: PendingRequest) -> Resolution:
        approval_id, node_id = pending.approval_id, pending.node_id
        future: asyncio.Future[Resolution] = asyncio.get_running_loop().create_future()
        self._pending[approval_id] = pending
        self._futures[approval_id] = future
        event: dict[str, Any] = {"type": "approval.requested", **pending.to_dict()}
        event.pop("requestedAt")
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
                self._end(approval_id, f"it was denied: {self._abort_reason}")

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
            gone = [a for a in self._ended if a == ref or a.startswith(ref)]
            if len(gone) == 1:
                raise ApprovalError(f"approval {gone[0][:8]} is no longer pending: "
                                    f"{self._ended[gone[0]]}")
            raise ApprovalError(f"no pending approval matches {ref!r}")
        raise ApprovalError(f"{ref!r} matches {len(hits)} pending approvals; give more of the id")

    def resolve(self, approval_id: str, status: ApprovalStatus | str,
                modified_args: dict[str, Any] | None = None, reason: str | None = None,
                by: str = "terminal", merge: dict[str, Any] | None = None,
                choice: int | None = None) -> Resolution:
        """Decide a pending call or merge: emit ``approval.resolved`` and release its
        waiter. ApprovalInvalid (nothing decided) when the decision does not fit."""
        approval_id = self.match(approval_id)
        status = ApprovalStatus(status)
        request = self._pending[approval_id]
        _fits_status(status, modified_args, merge, choice)
        if request.choice is not None:
            choice = check_choice(request.choice, status, choice)
        elif choice is not None:
            raise ApprovalInvalid("choice only decides a choice approval", "choice")
        if request.merge is not None:
            merge = check_merge_choice(request.merge, status, merge)
        elif merge is not None:
            raise ApprovalInvalid("merge only decides a merge approval; this one is a tool "
                                  "call", "merge")
        elif status is ApprovalStatus.MODIFIED and not isinstance(modified_args, dict):
            raise ApprovalError("a modified call needs its new arguments as a JSON object")
        pending = self._pending.pop(approval_id)
        resolution = Resolution(status=status, modified_args=modified_args, merge=merge,
                                choice=choice, reason=reason, by=by)
        self._emit(_resolved(approval_id, pending.node_id, resolution))
        self._end(approval_id, f"it was already {status.value} by {by}")
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

    def abort_nodes(self, node_ids: set[str], reason: str) -> None:
        """End the waits of ``node_ids``' requests now (their turns are being cancelled):
        each is recorded as denied with ``reason`` and is no longer pending, so an answer
        that comes later is refused instead of reported as taken."""
        for approval_id, pending in list(self._pending.items()):
            if pending.node_id in node_ids:
                self._pending.pop(approval_id)
                self._futures.pop(approval_id).cancel()
                self._emit(_resolved(approval_id, pending.node_id, Resolution(
                    status=ApprovalStatus.DENIED, reason=reason, by="engine")))
                self._end(approval_id, f"its turn was cancelled: {reason}")

    def ended(self, approval_id: str) -> str | None:
        """Why the request ``approval_id`` no longer waits (None: not one that ended here)."""
        return self._ended.get(approval_id)

    def _end(self, approval_id: str, why: str) -> None:
        self._ended[approval_id] = why
        while len(self._ended) > ENDED_MEMORY:
            self._ended.popitem(last=False)

    def subscribe(self, callback: Callable[[PendingRequest], None]) -> Callable[[], None]:
        """Call ``callback`` on each new request; returns the unsubscribe function."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers \
            else None


def _fits_status(status: ApprovalStatus, modified_args: dict[str, Any] | None,
                 merge: dict[str, Any] | None, choice: int | None) -> None:
    """ApprovalInvalid when the decision carries what its status does not use: the log
    would record new arguments, a merge or an attempt that nothing acted on (an approved
    call runs as asked; a denied merge or choice takes none)."""
    if modified_args is not None and status is not ApprovalStatus.MODIFIED:
        raise ApprovalInvalid(f"modifiedArgs goes with status modified: a call {status.value} "
                              "runs (or is refused) as it was asked. Send status modified "
                              "to change its arguments, or leave modifiedArgs out",
                              "modifiedArgs")
    if status is ApprovalStatus.DENIED:
        for given, name in ((merge, "merge"), (choice, "choice")):
            if given is not None:
                raise ApprovalInvalid(f"a denied approval takes no {name}: approve with it, "
                                      f"or deny leaving {name} out", name)


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
