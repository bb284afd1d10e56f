"""What a run's result is when no node worked in a git worktree of its own but a node's
best-of-N attempts did: the run's scratch folder.

A node with ``attempts`` and no workspace takes each turn as attempts in worktrees of the
run's own scratch repository, ``runs/<runId>/workspace`` (desktop/runtime/attempt_trees.py):
the chosen attempt's commit is fast-forwarded into that folder, and every attempt keeps
its branch there. There is no result branch to apply to a repository of the user's
(desktop/views/result.py); the folder, with those branches, is what the run left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.contract.state import RunState
from desktop.views.node_folder import workspace_path


@dataclass(frozen=True)
class AttemptBranch:
    """One attempt's branch in the scratch repository."""

    node: str
    """The node's key, else its label."""
    index: int
    branch: str
    chosen: bool


@dataclass(frozen=True)
class ScratchResult:
    """The run's scratch folder and the attempts' branches kept in its repository."""

    folder: Path
    branches: tuple[AttemptBranch, ...]

    def branch_list(self) -> str:
        """``BRANCH (chosen), BRANCH, ...``, turn by turn, attempt by attempt."""
        return ", ".join(f"{b.branch} (chosen)" if b.chosen else b.branch
                         for b in self.branches)

    def text(self) -> str:
        """What the result consists of, in a sentence."""
        took = ("the chosen attempt of each best-of-N turn is committed in its own git "
                "repository, with what later turns changed on top of it"
                if any(b.chosen for b in self.branches) else "no attempt was chosen yet")
        return (f"its work is in the run's scratch folder {self.folder}: {took}, and every "
                f"attempt keeps its branch there ({self.branch_list()})")

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``{"folder", "branches": [{node, index, branch, chosen}]}``."""
        return {"folder": str(self.folder),
                "branches": [{"node": b.node, "index": b.index, "branch": b.branch,
                              "chosen": b.chosen} for b in self.branches]}


def may_have_scratch_attempts(state: RunState) -> bool:
    """Whether the run can have attempts in its scratch repository (no node in a worktree
    of its own, and a node with attempts and no workspace): only then is its log read."""
    if any(node.git is not None for node in state.nodes.values()):
        return False
    return any(config.attempts and not config.workspace
               for config in state.node_configs.values())


def scratch_result(state: RunState, run_dir: Path,
                   events: Iterable[Mapping[str, Any]]) -> ScratchResult | None:
    """The scratch result of the run in ``run_dir`` from its ``events`` (its log), or
    None when no attempt left a branch in the scratch repository."""
    if not may_have_scratch_attempts(state):
        return None
    # by branch: an attempt made again (its turn resumed) moves its branch to the new one
    ended: dict[str, tuple[str, str, int]] = {}
    chosen: set[tuple[str, int]] = set()
    for event in events:
        kind = event.get("type")
        if kind == "attempt.completed":
            summary = event.get("summary") or {}
            branch, index = summary.get("branch"), event.get("attemptIndex")
            if isinstance(branch, str) and branch and type(index) is int:
                ended.pop(branch, None)  # listed where it ended last
                ended[branch] = (str(event.get("nodeId")), str(event.get("turnId")), index)
        elif kind == "choice.made" and type(event.get("attemptIndex")) is int:
            chosen.add((str(event.get("turnId")), event["attemptIndex"]))
    if not ended:
        return None
    turns = {turn: order for order, turn in enumerate(dict.fromkeys(
        turn for _node, turn, _index in ended.values()))}
    branches = []
    # turn by turn, attempt by attempt (not as they happened to end)
    for branch, (node_id, turn, index) in sorted(
            ended.items(), key=lambda kv: (turns[kv[1][1]], kv[1][2])):
        node = state.nodes.get(node_id)
        name = (node.key or node.label) if node is not None else node_id[:8]
        branches.append(AttemptBranch(name, index, branch, (turn, index) in chosen))
    return ScratchResult(workspace_path(None, None, Path(run_dir)), tuple(branches))


__all__ = ["AttemptBranch", "ScratchResult", "may_have_scratch_attempts", "scratch_result"]
