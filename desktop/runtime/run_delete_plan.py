"""What deleting a run would take away, or why it would be refused, changing nothing:
``agent-canvas runs delete RUN --dry-run``.

It looks as deleting looks (desktop/runtime/run_delete.py,
desktop/runtime/worktree_cleanup.py): a worktree the user locked, or work made in the
run's worktrees after it ended (desktop/runtime/unsaved_work.py), refuses the run;
else its folder goes, with the worktrees inside it (each pooled for the next run or
removed), and its refs in every repository it worked in, but a branch checked out
outside the run and the refs of another run with the same first 8 characters.

Blocking (git): run it on a worker thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.runtime.git_base import applied_refs, run8, run_refs
from desktop.runtime.git_run import git
from desktop.runtime.run_delete import WorktreesLocked
from desktop.runtime.unsaved_work import WorkNotSaved, unsaved_work
from desktop.runtime.worktree_cleanup import (
    locked_worktrees,
    owns_refs,
    repositories,
    under,
)
from desktop.runtime.worktree_list import worktrees


@dataclass
class DeletePlan:
    """What deleting run ``run_id`` (folder ``folder``) would do."""

    run_id: str
    folder: Path
    refused: str | None = None
    """Why it would be refused (it names what keeps the run and how to go on); None: it
    would go."""
    worktrees: list[Path] = field(default_factory=list)
    """Its worktrees, which would be pooled for the next run or removed."""
    refs: list[str] = field(default_factory=list)
    """Its refs that would be deleted (branches, base ref, applications kept for undo)."""
    kept: list[str] = field(default_factory=list)
    """Refs that would be left alone, each with the reason."""
    undo_lost: bool = False
    """An apply of its result could no longer be undone with ``runs apply --undo``."""

    def branches(self) -> list[str]:
        return [ref.removeprefix("refs/heads/") for ref in self.refs
                if ref.startswith("refs/heads/")]


def _reason(exc: Exception, run_id: str) -> str:
    """The refusal's words without what a real deletion says happened."""
    return str(exc).removeprefix(f"run {run8(run_id)} not deleted, nothing was changed: ")


def plan_delete(folder: Path, run_id: str, state: Mapping[str, Any] | None = None, *,
                live: bool = False) -> DeletePlan:
    """What deleting run ``run_id`` would do (``state``: its folded state, None when
    unreadable; ``live``: a run the service would stop first, whose idle nodes'
    worktrees are looked at as :func:`unsaved_work` says)."""
    plan = DeletePlan(run_id, Path(folder))
    locked = locked_worktrees(folder, state)
    if locked:
        plan.refused = _reason(WorktreesLocked(run_id, locked), run_id)
        return plan
    unsaved = unsaved_work(folder, run_id, state, live=live)
    if unsaved:
        plan.refused = _reason(WorkNotSaved(run_id, unsaved, live=live), run_id)
        return plan
    for common in repositories(folder, state):
        in_use = set()
        for tree in worktrees(common):
            if under(tree.path, folder):
                plan.worktrees.append(tree.path)
            elif tree.branch is not None:
                in_use.add(tree.branch)
        if not owns_refs(common, run_id):
            plan.kept.append(f"{common}: refs/canvas/{run8(run_id)}/ belongs to another run")
            continue
        listed = git(common, "for-each-ref", "--format=%(refname)", *run_refs(run_id))
        for ref in listed.text.splitlines() if listed.ok else []:
            if ref in in_use:
                plan.kept.append(f"{common}: {ref} is checked out outside the run")
            else:
                plan.refs.append(ref)
                plan.undo_lost |= ref.startswith(applied_refs(run_id))
    return plan


__all__ = ["DeletePlan", "plan_delete"]
