"""A run left paused: paused, with no turn running and no request open, whether or not
an engine still holds it.

An engine that lets go of a paused run (``agent-canvas run`` at the end of its input,
``serve`` shutting down) settles it first: each open request is denied by the engine
and each waiting turn cancelled, its inbox put back, so resuming starts those turns
again and asks again. An engine that died mid-turn settles nothing: its turn stays in
``runningTurns`` (and its requests pending) until a resume finds it, and that is what
makes a run *interrupted*. The log tells the two apart with the events it already has.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.contract.enums import RunStatus
from desktop.contract.state import RunState
from desktop.views.approval_text import approval_text
from desktop.views.reader import EventReader
from desktop.views.subflows import agent_turns

PAUSES = frozenset({"run.paused", "run.stalled", "run.budget_exceeded"})
"""The events that pause a run."""
_PAGE = 200
_WHAT = {"choice": "choice", "merge": "merge"}


def left_paused(state: RunState) -> bool:
    """Whether the run is paused with nothing cut short: no agent's turn running, no
    request open, and no engine found dead in it (``run.interrupted``). A subflow node's
    step stays open while the run is paused inside it: no process of its own runs, so
    nothing of it was cut short (desktop/views/subflows.py)."""
    return (state.status == RunStatus.PAUSED and not agent_turns(state)
            and not state.pending_approvals and not state.interrupted)


@dataclass(frozen=True)
class Withdrawn:
    """A request the run waited on, denied by its engine when it let go of the run (the
    turn asks again when the run resumes)."""

    approval_id: str
    node: str
    """The asking node's label ('' when the request names none)."""
    kind: str
    """tool, merge or choice."""
    text: str
    """What it asked (desktop/views/approval_text.py)."""

    def line(self) -> str:
        """``Implementer's choice 982ae9df (choose the attempt that goes on: ...)``."""
        whose = f"{self.node}'s " if self.node else ""
        return f"{whose}{_WHAT.get(self.kind, 'approval')} {self.approval_id[:8]} ({self.text})"


@dataclass(frozen=True)
class PauseDetail:
    """Why a run left paused paused, and what it waits for."""

    reason: str
    withdrawn: tuple[Withdrawn, ...] = ()

    def text(self) -> str:
        """One paragraph for a banner: ``Waiting for input ... . It waits for Builder's
        approval 982ae9df (...), asked again when it resumes.``"""
        why = self.reason[:1].upper() + self.reason[1:] if self.reason else "Paused"
        waits = "; ".join(w.line() for w in self.withdrawn)
        asked = (f" It waits for {waits}, asked again when it resumes."
                 if waits else "")
        return f"{why}.{asked}"

    def to_json(self, run_ref: str) -> dict[str, Any]:
        """The wire form, with the command that continues the run; ``run_ref``: the run's
        short id and the options that find it (``1a2b3c4d --data-dir DIR``)."""
        return {"reason": self.reason, "resume": f"agent-canvas resume {run_ref}",
                "waitsFor": [{"approvalId": w.approval_id, "node": w.node, "kind": w.kind,
                              "text": w.text} for w in self.withdrawn]}


def _reason(event: dict[str, Any]) -> str:
    if event.get("type") == "run.stalled":
        return f"stalled: {event.get('reason') or '?'}"
    if event.get("type") == "run.budget_exceeded":
        return f"budget reached ({event.get('limit') or '?'})"
    return str(event.get("reason") or "")


def pause_detail(state: RunState, run_dir: Path) -> PauseDetail:
    """Why the run of ``state`` (left paused) paused and the requests its engine withdrew
    on letting go, read from the end of its log in ``run_dir``."""
    reader = EventReader(run_dir)
    reason: str | None = None
    withdrawn: list[str] = []
    asked: dict[str, dict[str, Any]] = {}
    before: int | None = None
    while True:
        page = reader.page(limit=_PAGE, before=before)
        for event in reversed(page.events):
            kind = event.get("type")
            if reason is None:
                resolution = event.get("resolution") or {}
                if kind == "approval.resolved" and resolution.get("by") == "engine" \
                        and resolution.get("status") == "denied":
                    withdrawn.append(str(event.get("approvalId")))
                elif kind in PAUSES:
                    reason = _reason(event)
            elif kind == "approval.requested" and event.get("approvalId") in withdrawn:
                asked[str(event["approvalId"])] = event
            if reason is not None and len(asked) == len(withdrawn):
                break
        else:
            if page.has_more and page.next_cursor is not None:
                before = page.next_cursor
                continue
        break
    found = []
    for approval_id in reversed(withdrawn):  # oldest first
        request = asked.get(approval_id)
        if request is None:
            continue
        node = state.nodes.get(str(request.get("nodeId") or ""))
        found.append(Withdrawn(approval_id, node.label if node else "",
                               str(request.get("kind") or "tool"), approval_text(request)))
    return PauseDetail(reason or "", tuple(found))


__all__ = ["PAUSES", "PauseDetail", "Withdrawn", "left_paused", "pause_detail"]
