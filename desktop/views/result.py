"""Which node's branch is a run's result: the node that finished a turn last, else the entry;
and, for the run list and ``runs show``, that branch with whether it was applied.

A run whose nodes work in their own git worktrees ends with its work on several
branches; code travels along the edges (a report merges the sender's branch into the
receiver's), so the node that finished last holds what the run arrived at. When no
node in a worktree finished a turn, the entry node's branch is the result (it holds the
base, and whatever its turns left). A run with no node in a worktree has no result
branch.

Applying the result (desktop/runtime/result_apply.py) is recorded beside the log, in
``applied.json`` (desktop/store/applied.py): :class:`ResultSummary` reads both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from desktop.contract.state import NodeState, RunState
from desktop.store.applied import read_applied
from desktop.views.reader import EventReader

_PAGE = 2000
"""Events read at a time when the log is searched from its end."""


def undoable(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The application of a result that undo would take back (``applied.json``'s
    records, oldest first): the latest onto the working tree not undone yet, when it
    kept its state; None: nothing to undo."""
    for record in reversed(records):
        if record.get("target") == "worktree" and not record.get("undone"):
            return record if record.get("undo") else None
    return None


def in_scratch(result: Mapping[str, Any]) -> bool:
    """The result (``GET .../result``) is in the run's own scratch repository (its nodes
    asked for worktrees with no workspace), not in a repository of the user's."""
    repo = Path(str(result.get("repo") or ""))
    return repo.name == "workspace" and repo.parent.name == str(result.get("runId") or "")


Left = Literal["result", "scratch", "diffs", "nothing"]
"""What a run's work left to review: a result branch (the Result view shows it), the
run's scratch folder with the branches of a node's best-of-N attempts
(desktop/views/scratch_result.py), only diffs (the Diffs view shows them), or neither."""


def what_it_left(state: Mapping[str, Any]) -> Left:
    """What the run of ``state`` (its camelCase form, as a client folds it) left to review.
    A result branch exists exactly when a node worked in a git worktree (see
    :func:`result_node`); without one, the diffs its turns wrote are what there is, in
    the run's scratch folder when a node with best-of-N attempts and no workspace made
    them (each attempt worked in a worktree of the folder's own repository)."""
    nodes = state.get("nodes") or {}
    if any(isinstance(node, Mapping) and node.get("git") for node in nodes.values()):
        return "result"
    artifacts = state.get("artifacts") or {}
    if not any(isinstance(art, Mapping) and art.get("kind") == "diff"
               for art in artifacts.values()):
        return "nothing"
    configs = state.get("nodeConfigs") or {}
    if any(isinstance(cfg, Mapping) and cfg.get("attempts") and not cfg.get("workspace")
           for cfg in configs.values()):
        return "scratch"
    return "diffs"


def listed_left(row: Mapping[str, Any]) -> Left | None:
    """What the run of a run list's ``row`` left, as far as the row tells: a row names its
    result branch when it has one, but never its diffs, and a row of a run still hosted
    lists no result at all, so without one it is unknown (None)."""
    return "result" if row.get("result") else None


def _in_worktrees(state: RunState) -> dict[str, NodeState]:
    return {node.id: node for node in state.nodes.values() if node.git is not None}


def _finished(event: Mapping[str, Any], nodes: Mapping[str, NodeState]) -> bool:
    return (event.get("type") == "turn.status" and event.get("status") == "completed"
            and event.get("nodeId") in nodes)


def _fallback(nodes: dict[str, NodeState]) -> NodeState:
    entries = [node for node in nodes.values() if node.entry]
    return entries[0] if entries else next(iter(nodes.values()))


def result_node(state: RunState, events: Iterable[dict[str, Any]]) -> NodeState | None:
    """The node whose branch is the run's result, or None when no node has a branch."""
    in_worktrees = _in_worktrees(state)
    if not in_worktrees:
        return None
    last: str | None = None
    for event in events:
        if _finished(event, in_worktrees):
            last = event["nodeId"]
    if last is not None:
        return in_worktrees[last]
    return _fallback(in_worktrees)


def latest_result_node(state: RunState, run_dir: Path) -> NodeState | None:
    """:func:`result_node` of the run in ``run_dir``, found by reading its log from the
    end (the last turn a node in a worktree finished is near it), so listing many runs
    does not read every log whole."""
    in_worktrees = _in_worktrees(state)
    if not in_worktrees:
        return None
    reader = EventReader(run_dir)
    before: int | None = None
    while True:
        page = reader.page(limit=_PAGE, before=before)
        for event in reversed(page.events):
            if _finished(event, in_worktrees):
                return in_worktrees[event["nodeId"]]
        if not page.has_more or page.next_cursor is None:
            return _fallback(in_worktrees)
        before = page.next_cursor


@dataclass(frozen=True)
class ResultSummary:
    """A run's result branch and each time it was applied (oldest first) and not undone
    since: an application taken back no longer counts (Run history says "not applied",
    and ``runs delete --applied`` leaves the run, whose work would go with it)."""

    node_id: str
    node: str
    """The node's key, else its label."""
    branch: str
    repo: str
    applied: tuple[dict[str, Any], ...] = ()

    def __post_init__(self) -> None:
        standing = tuple(entry for entry in self.applied if not entry.get("undone"))
        object.__setattr__(self, "applied", standing)

    @property
    def last_applied(self) -> dict[str, Any] | None:
        """The latest application, if any."""
        return self.applied[-1] if self.applied else None

    def _places(self) -> list[tuple[dict[str, Any], int]]:
        """Each place the result went (the working tree, a branch by name), latest first:
        its latest application and how many times it went there."""
        places: dict[tuple[str, str], list[Any]] = {}
        for entry in reversed(self.applied):
            key = ("branch", str(entry.get("branch") or "?")) \
                if entry.get("target") == "branch" else ("tree", "")
            if key in places:
                places[key][1] += 1
            else:
                places[key] = [entry, 1]
        return [(entry, times) for entry, times in places.values()]

    def applied_where(self) -> str:
        """Where it was applied, briefly, latest first: ``working tree``, ``branch NAME``,
        ``working tree, branch NAME``, or ``not applied``."""
        if not self.applied:
            return "not applied"
        return ", ".join(f"branch {entry.get('branch') or '?'}"
                         if entry.get("target") == "branch" else "working tree"
                         for entry, _times in self._places())

    def applied_text(self) -> str:
        """A sentence for ``runs show``: ``applied as branch NAME in REPO at TIME``, each
        place it went, latest first (with how many times when more than once), or
        ``not applied``."""
        if not self.applied:
            return "not applied"
        parts = []
        for entry, times in self._places():
            if entry.get("target") == "branch":
                where = f"as branch {entry.get('branch') or '?'} in {self.repo}"
            else:
                where = f"to the working tree of {self.repo}"
            when = f" at {str(entry['at']).replace('T', ' ').rstrip('Z')}" \
                if entry.get("at") else ""
            parts.append(f"{where}{when}" + (f" ({times} times)" if times > 1 else ""))
        return "applied " + "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``{"nodeId", "node", "branch", "repo", "applied": [...]}``."""
        return {"nodeId": self.node_id, "node": self.node, "branch": self.branch,
                "repo": self.repo, "applied": list(self.applied)}


def result_summary(state: RunState, run_dir: Path) -> ResultSummary | None:
    """The run's result branch and its applications, or None when no node of it worked in
    a worktree of its own."""
    node = latest_result_node(state, run_dir)
    if node is None or node.git is None:
        return None
    return ResultSummary(node.id, node.key or node.label, node.git.branch, node.git.repo,
                         tuple(read_applied(run_dir)))


__all__ = ["Left", "ResultSummary", "latest_result_node", "listed_left", "result_node",
           "result_summary", "what_it_left"]
