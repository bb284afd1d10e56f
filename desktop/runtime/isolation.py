"""Whether a node works in its own git worktree, and that worktree made ready for a turn.

The rule (desktop/contract/isolation.py): the node's ``isolation``, else the run's,
else ``worktree`` when the node's configured workspace is in a git repository. The
run's scratch folder, and folders outside git, stay shared.

Before each turn of an isolated node: what a dead engine left half done is put right
(desktop/runtime/worktree_repair.py), changes made in the worktree since the last turn
(a verification command's files, an edit by hand, what an interrupted agent run left)
are committed on their own, and the commits the senders of its inbox's handoffs and
reports sent are merged in (desktop/runtime/worktree_merge.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.contract.isolation import Isolation
from desktop.runtime import worktree_merge, worktree_repair, worktrees
from desktop.runtime.worktrees import NodeTree

if TYPE_CHECKING:
    from desktop.runtime.turn import TurnContext

Emit = Callable[[dict[str, Any]], None]


def choice(node: str | None, run: str | None) -> str | None:
    """The isolation asked for: the node's, else the run's (None: the default)."""
    return node or run


async def prepare(ctx: TurnContext, workspace: Path, emit: Emit) -> tuple[Path, NodeTree | None]:
    """The folder the node's agent works in this turn, and its worktree when it has one.
    Raises MergeConflict when a sender's branch cannot be merged (nothing changed)."""
    asked = choice(ctx.config.isolation, ctx.isolation)
    if not ctx.config.workspace or asked == Isolation.SHARED:
        return workspace, None
    tree = await asyncio.to_thread(worktrees.open_tree, workspace, ctx.run_dir, ctx.run_id,
                                   ctx.node.key, ctx.node.id)
    if tree is None:
        if asked == Isolation.WORKTREE:
            emit({"type": "node.log", "stream": "stderr", "text":
                  f"isolation: worktree has no effect: {workspace} is not in a git "
                  "repository, so the node works in the folder itself"})
        return workspace, None
    notes, conflict = await asyncio.to_thread(_ready, ctx, tree, ctx.nodes)
    for text in notes:
        emit({"type": "node.progress", "message": text})
    await record_head(ctx, tree, emit)
    if conflict is not None:
        raise conflict
    return tree.workdir, tree


async def record_head(ctx: TurnContext, tree: NodeTree, emit: Emit) -> None:
    """Put the node's worktree, branch and current commit on its ``git`` record (a
    ``node.patch``), unless the record already says so: where a fork starts the node."""
    record = {**tree.record(ctx.run_dir), "head": await head(tree)}
    known = ctx.node.git.to_json_dict() if ctx.node.git is not None else None
    if known != record:
        emit({"type": "node.patch", "patch": {"git": record}})


def _ready(ctx: TurnContext, tree: NodeTree, peers: Mapping[str, Any]
           ) -> tuple[list[str], worktree_merge.MergeConflict | None]:
    """Settle the worktree before the turn: what was done, as progress lines, and the
    merge that conflicted, if one did."""
    notes: list[str] = []
    name = ctx.node.key or ctx.node.label
    notes += worktree_repair.repair(tree)
    left = worktrees.commit_all(tree, worktrees.between_message(ctx.run_id, name,
                                                                ctx.turn_number))
    if left is not None:
        what = "an interrupted agent run left" if ctx.restart else \
            "made in the worktree since the last turn"
        notes.append(f"committed the changes {what} in {tree.branch} ({left[:8]})")
    for source in worktree_merge.inbox_sources(ctx.items, peers, tree):
        try:
            merged = worktree_merge.merge_one(tree, source)
        except worktree_merge.MergeConflict as conflict:
            return notes, conflict
        if merged is not None:
            notes.append(f"merged {merged.source} (from {merged.sender}) into {tree.branch} "
                         f"({merged.commit[:8]})")
    return notes, None


async def commit_turn(ctx: TurnContext, tree: NodeTree, agent_run_id: str,
                      attempt: int) -> str | None:
    """Commit what the agent run changed on the node's branch; the commit, or None."""
    message = worktrees.turn_message(ctx.run_id, ctx.node.key or ctx.node.label, ctx.node.id,
                                     ctx.turn_number, agent_run_id, attempt)
    return await asyncio.to_thread(worktrees.commit_all, tree, message)


async def head(tree: NodeTree) -> str:
    """The worktree's current commit."""
    return await asyncio.to_thread(worktrees.head, tree.path)
