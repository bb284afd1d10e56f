"""Where a run can be forked: the points between turns, and what a chosen seq snaps to.

A fork copies a prefix of the run's events and continues from there, so the prefix
must end where nothing is half done. A *fork point* is a seq S such that after events
1..S no turn is running and no approval is pending, and the next event starts a turn
(or S is the last event of a run that is not completed). The turn's routing (the
handoffs and reports it sends after ``turn.status completed``) always lies before such
a point, so a fork never loses what a finished turn handed on, and the workspace at S
is exactly what the recorded diffs of the agent runs before S describe.

A seq chosen anywhere in the log snaps to a fork point (one past the end of a run no
engine holds is refused: there is no event there to fork from, nor will be):

- inside a turn (some turn is running after it): back to the point before the turn
  that was running first, which the fork then takes again;
- between turns: forward to the end of that quiet stretch, keeping the bookkeeping
  events (routing, chat messages, edits) that cost no agent work.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from desktop.contract.enums import TURN_ENDED
from desktop.views.reader import EventReader

_STATUS = {"run.created": "queued", "run.started": "running", "run.resumed": "running",
           "run.paused": "paused", "run.stalled": "paused", "run.stopped": "stopped",
           "run.completed": "completed", "run.failed": "failed"}
T = TypeVar("T")


class NoForkPoint(ValueError):
    """The run has no point between turns at or before the seq asked for."""


@dataclass(frozen=True)
class ForkPoint:
    """Events 1..``seq`` can be copied into a fork that continues from there."""

    seq: int
    node_id: str | None = None
    """The node whose turn starts right after ``seq`` (None: the end of the log)."""
    turn: int = 0
    """That node's turn number (its completed turns plus one)."""
    label: str = ""


@dataclass(frozen=True)
class DiffRecord:
    """A diff an agent run recorded: ``path`` is relative to the run folder."""

    seq: int
    node_id: str
    path: str
    workspace: str | None
    """The node's configured workspace when the diff was made (None: the run's scratch)."""
    commit: str | None = None
    """Set when the node worked in its own git worktree: the commit holding the change."""
    attempt: int | None = None
    """The attempt of a best-of-N turn that made it, until the choice: then the winner's
    diff stays (as the node's) and the others' are dropped."""


@dataclass(frozen=True)
class CommitRecord:
    """A commit a node in its own git worktree was at: a turn's commit (on its diff
    artifact) or its worktree's commit made ready for a turn (``git.head``)."""

    seq: int
    node_id: str
    commit: str


@dataclass(frozen=True)
class Snap:
    """Where a requested seq lands and why, in words a person can check."""

    requested: int
    point: ForkPoint
    note: str


@dataclass
class ForkScan:
    """One pass over a run's log: its fork points and what a fork needs to copy."""

    run_id: str = ""
    last_seq: int = 0
    status: str = "queued"
    points: list[ForkPoint] = field(default_factory=list)
    busy: list[tuple[int, int | None]] = field(default_factory=list)
    """Stretches [start, end) of seqs after which some turn was running."""
    diffs: list[DiffRecord] = field(default_factory=list)
    agent_runs: list[tuple[int, str]] = field(default_factory=list)
    """(seq of its turn.status started, agentRunId), in log order."""
    commits: list[CommitRecord] = field(default_factory=list)
    """The commits of the nodes working in their own git worktrees, in log order."""
    labels: dict[str, str] = field(default_factory=dict)
    workflow_path: str | None = None
    live: bool = False
    """An engine held the run as it was read: its log may still grow past ``last_seq``."""

    def busy_at(self, seq: int) -> bool:
        """Whether a turn was running (or an approval pending) after event ``seq``."""
        starts = [start for start, _ in self.busy]
        i = bisect.bisect_right(starts, seq) - 1
        if i < 0:
            return False
        end = self.busy[i][1]
        return end is None or seq < end

    def snap(self, requested: int) -> Snap:
        """The fork point for ``requested`` (see the module docstring)."""
        if not self.points:
            raise NoForkPoint(f"run {self.run_id[:8]} has no point between turns to fork from"
                              " (no turn has started yet, or the log is empty)")
        if int(requested) > self.last_seq and not self.live:
            # no event there, nor ever will be: snapping back would quietly fork somewhere
            # else than asked (a live run's log grows: a seq past it means "where it is now")
            last = self.points[-1]
            raise NoForkPoint(f"seq {requested} is past the end of run {self.run_id[:8]}, whose "
                              f"last event is seq {self.last_seq}; give a seq up to "
                              f"{self.last_seq} (its last point to fork from is seq "
                              f"{last.seq}, {self.describe(last)})")
        seq = min(max(int(requested), 1), self.last_seq)
        seqs = [p.seq for p in self.points]
        busy = self.busy_at(seq)
        if not busy:
            i = bisect.bisect_left(seqs, seq)
            if i < len(seqs):
                point = self.points[i]
                note = (f"at seq {point.seq}" if point.seq == seq else
                        f"seq {requested} is between turns; the fork keeps the events up to "
                        f"seq {point.seq} (no agent worked in between)")
                return Snap(int(requested), point, f"{note}, {self.describe(point)}")
        i = bisect.bisect_right(seqs, seq) - 1
        if i < 0:
            raise NoForkPoint(f"run {self.run_id[:8]} has no point between turns at or before "
                              f"seq {requested}; the first is seq {seqs[0]}")
        point = self.points[i]
        if busy:
            note = (f"seq {requested} is inside a turn; the fork continues from seq "
                    f"{point.seq}, {self.describe(point)}, and takes that turn again")
        else:  # the quiet end of a completed run: nothing follows to continue
            note = (f"seq {requested} is after the run's last turn; the fork continues from "
                    f"seq {point.seq}, {self.describe(point)}, and takes that turn again")
        return Snap(int(requested), point, note)

    def commit_at(self, node_id: str, seq: int) -> str | None:
        """Node ``node_id``'s commit after events 1..``seq``: the last one recorded for it
        at or before ``seq`` (None: it had made none, it is at the run's base)."""
        found = None
        for record in self.commits:
            if record.seq > seq:
                break
            if record.node_id == node_id:
                found = record.commit
        return found

    def describe(self, point: ForkPoint) -> str:
        """``before Reviewer's turn 2`` or ``at the end of the log``."""
        if point.node_id is None:
            return "at the end of the log"
        return f"before {point.label or point.node_id[:8]}'s turn {point.turn}"


class _Scanner:
    """Light bookkeeping over events: which turns run, which approvals wait."""

    def __init__(self, live: bool) -> None:
        self.live = live
        self.scan = ForkScan(live=live)
        self.running: set[str] = set()
        self.approvals: set[str] = set()
        self.completed: dict[str, int] = {}
        self.workspaces: dict[str, str | None] = {}
        self.busy_since: int | None = None

    def feed(self, e: dict[str, Any]) -> None:
        scan = self.scan
        kind, seq = e.get("type"), e.get("seq")
        if type(seq) is not int:
            return
        node_id = e.get("nodeId")
        if kind == "turn.status" and e.get("status") == "started" and type(node_id) is str \
                and not self.running and not self.approvals and scan.last_seq >= 1 \
                and scan.run_id:
            turn = self.completed.get(node_id, 0) + 1
            scan.points.append(ForkPoint(scan.last_seq, node_id, turn,
                                         scan.labels.get(node_id, "")))
        scan.last_seq = seq
        if kind in _STATUS:
            scan.status = _STATUS[kind]
        if kind == "run.created":
            self._created(e)
        elif kind == "node.patch" and type(node_id) is str:
            self._patched(node_id, e)
        elif kind == "turn.status" and type(node_id) is str:
            self._turn(node_id, seq, e)
        elif kind == "approval.requested" and type(e.get("approvalId")) is str:
            self.approvals.add(e["approvalId"])
        elif kind == "approval.resolved":
            self.approvals.discard(e.get("approvalId"))
        elif kind == "artifact.created":
            self._artifact(seq, e)
        elif kind == "choice.made" and type(node_id) is str:
            self._chosen(node_id, e.get("attemptIndex"))
        busy = bool(self.running or self.approvals)
        if busy and self.busy_since is None:
            self.busy_since = seq
        elif not busy and self.busy_since is not None:
            scan.busy.append((self.busy_since, seq))
            self.busy_since = None

    def _created(self, e: dict[str, Any]) -> None:
        scan = self.scan
        scan.run_id = str(e.get("runId") or "")
        if isinstance(e.get("workflowPath"), str):
            scan.workflow_path = e["workflowPath"]
        for node_id, node in (e.get("nodes") or {}).items():
            if isinstance(node, dict):
                scan.labels[node_id] = str(node.get("label") or node.get("key") or "")
        for node_id, config in (e.get("nodeConfigs") or {}).items():
            if isinstance(config, dict):
                self.workspaces[node_id] = config.get("workspace")

    def _patched(self, node_id: str, e: dict[str, Any]) -> None:
        patch, config = e.get("patch"), e.get("config")
        git = patch.get("git") if isinstance(patch, dict) else None
        if isinstance(git, dict) and isinstance(git.get("head"), str):
            self.scan.commits.append(CommitRecord(e["seq"], node_id, git["head"]))
        if isinstance(patch, dict) and (patch.get("label") or patch.get("key")):
            self.scan.labels[node_id] = str(patch.get("label") or patch.get("key"))
        if isinstance(config, dict) and "workspace" in config:
            self.workspaces[node_id] = config["workspace"]

    def _turn(self, node_id: str, seq: int, e: dict[str, Any]) -> None:
        status = e.get("status")
        if status == "started":
            self.running.add(node_id)
            if isinstance(e.get("agentRunId"), str):
                self.scan.agent_runs.append((seq, e["agentRunId"]))
        elif status in TURN_ENDED:
            self.running.discard(node_id)
            if status == "completed":
                self.completed[node_id] = self.completed.get(node_id, 0) + 1

    def _artifact(self, seq: int, e: dict[str, Any]) -> None:
        art = e.get("artifact")
        if not isinstance(art, dict) or art.get("kind") != "diff" \
                or not isinstance(art.get("path"), str):
            return
        node_id = art.get("nodeId") or e.get("nodeId")
        if isinstance(node_id, str):
            commit = art.get("commit") if isinstance(art.get("commit"), str) else None
            attempt = e.get("attemptIndex") if type(e.get("attemptIndex")) is int else None
            self.scan.diffs.append(DiffRecord(seq, node_id, art["path"],
                                              self.workspaces.get(node_id), commit, attempt))
            if commit is not None:
                self.scan.commits.append(CommitRecord(seq, node_id, commit))

    def _chosen(self, node_id: str, winner: Any) -> None:
        """A best-of-N turn of ``node_id`` chose ``winner``: the losing attempts' diffs
        never reached the node's workspace, so a fork does not replay them."""
        self.scan.diffs = [
            replace(d, attempt=None) if d.attempt == winner else d
            for d in self.scan.diffs
            if not (d.node_id == node_id and d.attempt is not None and d.attempt != winner)]

    def finish(self) -> ForkScan:
        scan = self.scan
        if self.busy_since is not None:
            scan.busy.append((self.busy_since, None))
        # The end of the log is a point when nothing there is half done: not while a live
        # engine may be between a finished turn and its routing, and not after completion.
        end_ok = (self.busy_since is None and scan.status != "completed"
                  and (not self.live or scan.status == "paused"))
        if end_ok and scan.last_seq >= 1 and scan.run_id and (
                not scan.points or scan.points[-1].seq != scan.last_seq):
            scan.points.append(ForkPoint(scan.last_seq))
        return scan


def scan_events(events: Iterable[dict[str, Any]], *, live: bool = False) -> ForkScan:
    """The fork points of a run whose events are ``events`` (in seq order).

    ``live``: an engine holds the run, so its last event is a point only while paused.
    """
    scanner = _Scanner(live)
    for event in events:
        scanner.feed(event)
    return scanner.finish()


def scan_run(run_dir: Path, *, live: bool | None = None) -> ForkScan:
    """:func:`scan_events` over a run folder's log (``live`` defaults to its engine lock)."""
    if live is None:
        from desktop.store.runs import engine_alive

        live = engine_alive(run_dir)
    scan = scan_events(EventReader(run_dir).iter_events(), live=live)
    if not scan.run_id:  # no event names it (an emptied log): the folder does, for messages
        scan.run_id = Path(run_dir).name
    return scan


def tree_order(items: list[T], key: Callable[[T], str], parent: Callable[[T], str | None]
               ) -> list[tuple[T, int]]:
    """``items`` as a tree of forks, depth first: each item followed by its forks (in the
    order given), with its depth. An item whose source is not among them is a root."""
    known = {key(item) for item in items}
    children: dict[str | None, list[T]] = {}
    for item in items:
        source = parent(item)
        children.setdefault(source if source in known else None, []).append(item)
    out: list[tuple[T, int]] = []
    seen: set[str] = set()

    def walk(roots: list[T]) -> None:
        stack = [(item, 0) for item in reversed(roots)]
        while stack:
            item, depth = stack.pop()
            if key(item) in seen:
                continue
            seen.add(key(item))
            out.append((item, depth))
            stack.extend((child, depth + 1) for child in reversed(children.get(key(item), [])))

    walk(children.get(None, []))
    walk([item for item in items if key(item) not in seen])  # lineage in a loop: bad data
    return out
