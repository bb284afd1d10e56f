"""When a run needs its user: which notices become a desktop notification (a *nudge*),
with what title, text and target.

A nudge is made for what happens while the app watches a run, from the run's typed
notices (desktop/views/notices.py), or, for a run no tab shows, from the service's list
of pending requests (:func:`requests_by_run`) and its run list (:func:`list_notices`): a
request opens (tool call, merge, ...), the run pauses on its own (a stall, a budget
reached, a merge that could not be made), or the run ends. Events replayed when a run is
opened never reach here. Each item nudges once: a request by its id, a pause once until
the run goes on again, an end once per run, whichever source tells of it first. Nothing
is shown while the user looks at the app, and each kind can be turned off.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop.contract.commands import Pause
from desktop.contract.enums import RUN_ENDED
from desktop.views.approval_text import approval_text
from desktop.views.notices import (
    ApprovalOpened,
    BudgetExceeded,
    Notice,
    RunChanged,
    RunStalled,
    StallEnded,
)
from desktop.views.result import Left
from desktop.views.stall_text import stall_detail

NudgeKind = Literal["approvals", "pauses", "ends"]
KINDS: tuple[NudgeKind, ...] = ("approvals", "pauses", "ends")
"""The kinds a user can turn off one by one, in the order the settings list them."""
KIND_TITLES: dict[NudgeKind, str] = {
    "approvals": "A request waits for a decision (tool call, merge, …)",
    "pauses": "The run paused by itself (stall, budget reached, merge conflict)",
    "ends": "The run ended (completed, failed or stopped)",
}
USER_PAUSE = Pause().reason
"""The reason of a pause the user asked for: they know, so it does not nudge."""

Target = Literal["approval", "stall", "paused", "result", "diffs", "conversation"]
ENDS = {"run.completed": "completed", "run.failed": "failed", "run.stopped": "was stopped"}
LEFT: dict[Left | None, tuple[str, Target]] = {
    "result": ("Its result is ready to review.", "result"),
    "scratch": ("Its changes are in the Diffs tab and in the run's scratch folder, where "
                "each best-of-N attempt keeps its branch (no node worked in a git worktree "
                "of a repository of yours, so there is no result branch to apply).", "diffs"),
    "diffs": ("Its changes are in the Diffs tab (no node worked in a git worktree, so "
              "there is no result branch).", "diffs"),
    "nothing": ("It left no change to review; its Conversation shows what it did.",
                "conversation"),
    None: ("Its Conversation shows what it did.", "conversation"),
}
"""What an ended run's nudge says it left, and what a click brings forward, by what it
left (None: not known, so only what every run has is promised)."""


@dataclass(frozen=True)
class Nudge:
    """One notification: what to say, and what a click on it brings forward."""

    kind: NudgeKind
    run_id: str
    title: str
    text: str
    target: Target
    """approval: the inbox entry ``item``; stall: the stall banner; paused: the run
    controls (Resume); result: the run's result; diffs: its diffs; conversation: its
    conversation."""
    item: str = ""

    @property
    def line(self) -> str:
        """Title and text as one line (a status bar's): a sentence after a full stop, a
        fragment after a colon."""
        return f"{self.title}. {self.text}" if self.text[:1].isupper() \
            else f"{self.title}: {self.text}"


@dataclass
class Nudges:
    """Decides the nudges of the runs an app watches; remembers what it already told."""

    enabled: set[NudgeKind] = field(default_factory=lambda: set(KINDS))
    _told: set[tuple[str, ...]] = field(default_factory=set)
    _paused: set[str] = field(default_factory=set)

    def decide(self, run_id: str, run_name: str, notices: Iterable[Notice], *,
               watching: bool = False, left: Left | None = None,
               labels: Mapping[str, str] | None = None) -> list[Nudge]:
        """The nudges of a batch of ``run_id``'s notices, in their order. ``watching``: the
        user looks at the app, so nothing is shown (and the items count as told).
        ``left``: what the run left to review (desktop/views/result.py), which an end's
        nudge points at; None when it is not known. ``labels``: node id -> label, to
        name the node a stall or a budget paused the run on (else its short id)."""
        out: list[Nudge] = []
        for notice in notices:
            nudge = self._of(run_id, run_name or "A run", notice, left, labels or {})
            if nudge is not None and not watching and nudge.kind in self.enabled:
                out.append(nudge)
        return out

    def _once(self, *key: str) -> bool:
        """True the first time ``key`` is met."""
        if key in self._told:
            return False
        self._told.add(key)
        return True

    def _pause(self, run_id: str) -> bool:
        """True for the first pause notice of a pause (a stall comes as two notices)."""
        if run_id in self._paused:
            return False
        self._paused.add(run_id)
        return True

    def _of(self, run_id: str, name: str, notice: Notice, left: Left | None,
            labels: Mapping[str, str]) -> Nudge | None:
        match notice:
            case ApprovalOpened(approval_id, request):
                if not self._once("approval", run_id, approval_id):
                    return None
                what = {"merge": "merge", "choice": "choice"}.get(str(request.get("kind")),
                                                                  "approval")
                return Nudge("approvals", run_id, f"{name} waits for your {what}",
                             approval_text(request), "approval", approval_id)
            case StallEnded():
                self._paused.discard(run_id)
            case RunStalled(stall) if self._pause(run_id):
                node = str(stall.get("nodeId") or "")
                where = f"node {_label(node, labels)} looks stuck: " if node else ""
                return Nudge("pauses", run_id, f"{name} stalled",
                             f"Paused: {where}{stall_detail(stall)}.", "stall")
            case BudgetExceeded(node_id, limit, budget, used) if self._pause(run_id):
                return Nudge("pauses", run_id, f"{name} reached its budget",
                             f"Paused: {budget_words(node_id, limit, budget, used, labels)}.",
                             "paused")
            case RunChanged("run.paused", reason) if reason != USER_PAUSE \
                    and self._pause(run_id):
                return Nudge("pauses", run_id, f"{name} paused",
                             reason.removeprefix("paused: ") or "Paused.", "paused")
            case RunChanged(kind, reason) if kind.removeprefix("run.") in RUN_ENDED:
                if not self._once("end", run_id):
                    return None
                said, target = LEFT[left]
                return Nudge("ends", run_id, f"{name} {ENDS[kind]}", reason or said, target)
        return None


_LIMITS = {"maxTokens": ("tokens", "{:,.0f}"), "maxCostUsd": ("cost", "${:,.4f}"),
           "maxWallSec": ("wall time", "{:,.0f} s")}
"""A limit's word and how its figures read, as the terminal says them."""


def _label(node_id: str, labels: Mapping[str, str]) -> str:
    return labels.get(node_id) or node_id[:8]


def budget_words(node_id: str, limit: str, budget: float, used: float,
                 labels: Mapping[str, str]) -> str:
    """``the budget of node Impl is reached (tokens 300 of 300)``; the run's budget when
    ``node_id`` is empty."""
    word, figure = _LIMITS.get(limit, (limit, "{:g}"))
    whose = f"the budget of node {_label(node_id, labels)}" if node_id else "the run's budget"
    return f"{whose} is reached ({word} {figure.format(used)} of {figure.format(budget)})"


def requests_by_run(items: Mapping[str, Mapping[str, Any]]) -> dict[str, list[Notice]]:
    """The service's pending requests (approval id -> request with its ``runId``), as the
    notices of each run they wait in."""
    out: dict[str, list[Notice]] = {}
    for approval_id, request in items.items():
        run_id = str(request.get("runId") or "")
        if run_id:
            out.setdefault(run_id, []).append(ApprovalOpened(approval_id, dict(request)))
    return out


PAUSING = ("stall", "budget")
"""The kinds of a run list's ``waiting`` entries that mean the run paused by itself."""


def list_notices(before: Mapping[str, str], runs: Iterable[Mapping[str, Any]]
                 ) -> dict[str, list[Notice]]:
    """What the service's run list says of each run since it listed the statuses
    ``before`` (run id -> status), as notices: a pause it took by itself (a stall or a
    budget reached, from its ``waiting`` entries), the pause over, or its end."""
    out: dict[str, list[Notice]] = {}
    for run in runs:
        run_id, status = str(run.get("id") or ""), str(run.get("status") or "")
        notices: list[Notice] = []
        pauses = [w for w in run.get("waiting") or () if w.get("kind") in PAUSING]
        if pauses:
            notices += [RunChanged("run.paused", f"{w.get('node') or 'The run'}: "
                                                 f"{w.get('reason') or w.get('kind')}")
                        for w in pauses]
        elif status == "running":
            notices.append(StallEnded())
        was = before.get(run_id)
        if was is not None and was not in RUN_ENDED and status in RUN_ENDED:
            notices.append(RunChanged(f"run.{status}"))
        if run_id and notices:
            out[run_id] = notices
    return out


def one_of(nudges: list[Nudge]) -> Nudge | None:
    """The one notification a batch shows: its last nudge (the run's latest news), saying
    how many more there are."""
    if not nudges:
        return None
    last = nudges[-1]
    if len(nudges) == 1:
        return last
    more = len(nudges) - 1
    return Nudge(last.kind, last.run_id, last.title,
                 f"{last.text} (and {more} more)", last.target, last.item)


__all__ = ["KINDS", "KIND_TITLES", "LEFT", "PAUSING", "USER_PAUSE", "Nudge", "NudgeKind", "Nudges",
           "Target", "budget_words", "list_notices", "one_of", "requests_by_run"]
