"""Whether a node works in its own git worktree, and that worktree made ready for a turn.

The rule (desktop/contract/isolation.py): the node's ``isolation``, else the run's,
else ``worktree`` when the node's configured workspace is in a git repository. Folders
outside git stay shared, and so does the run's scratch folder unless ``worktree`` is
asked for: then each node works in a worktree of the scratch repository (the run's own,
inside its folder), so an example without a workspace of the user's shows each node's
own diff, and code travels along the edges as it does in the user's repository.

Before each turn of an isolated node: what a dead engine left half done is put right
(desktop/runtime/worktree_repair.py), changes made in the worktree since the last turn
(a verification command's files, an edit by hand, what an interrupted agent run left)
are committed on their own, and the commits the senders of its inbox's handoffs and
reports sent are merged in (desktop/runtime/merge_gate.py: a conflict waits on a
person's ``merge`` approval, or goes to the agent, whose commit concludes the merge).
Once a node has its worktree, and so the run its base commit, the engine prepares the
other nodes' worktrees in the background (desktop/runtime/worktree_prefetch.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.contract.isolation import Isolation
from desktop.disk.keychain import keyring_env
from desktop.providers.redact import Redactor
from desktop.runtime import (
    merge_conflict,
    merge_gate,
    repo_busy,
    submodules,
    workspace_diff,
    worktree_merge,
    worktree_repair,
    worktree_setup,
    worktrees,
)
from desktop.runtime.agent_env import build_env
from desktop.runtime.git_base import left_out_note
from desktop.runtime.merge_gate import BY_HAND, OpenMerge
from desktop.runtime.workspace_error import WorkspaceError
from desktop.runtime.worktrees import NodeTree
from desktop.views.notices import ISOLATION_NOTE, WORKSPACE_NOTE

if TYPE_CHECKING:
    from desktop.runtime.turn import TurnContext

Emit = Callable[[dict[str, Any]], None]
Command = Callable[[Awaitable[None]], Awaitable[None]]
"""Runs a command of the turn's (desktop/runtime/turn.py: TurnRunner.command)."""
SETUP_LOGS = "setup"
"""The run folder's folder of worktree setup logs (``setup/<node>.log``)."""


def choice(node: str | None, run: str | None) -> str | None:
    """The isolation asked for: the node's, else the run's (None: the default)."""
    return node or run


@dataclass
class Ready:
    """Where the node's agent works this turn."""

    workdir: Path
    tree: NodeTree | None = None
    """Its own worktree, when it has one."""
    merging: OpenMerge | None = None
    """A merge left conflicted for the agent to resolve."""


async def prepare(ctx: TurnContext, workspace: Path, emit: Emit,
                  redactor: Redactor | None = None, command: Command | None = None) -> Ready:
    """The folder the node's agent works in this turn, with its worktree set up
    (desktop/runtime/worktree_setup.py), settled and its senders' work merged
    (desktop/runtime/merge_gate.py). Raises MergeConflict when a merge was undone
    (refused, or git could not merge), SetupFailed when the worktree's setup command
    failed. ``command`` runs that command (the turn's runner, which can end it)."""
    asked = choice(ctx.config.isolation, ctx.isolation)
    if asked == Isolation.SHARED or (not ctx.config.workspace and asked != Isolation.WORKTREE):
        return Ready(workspace)
    try:
        tree = await asyncio.to_thread(worktrees.open_tree, workspace, ctx.run_dir,
                                       ctx.run_id, ctx.node.key, ctx.node.id)
    except worktrees.GitError as exc:  # git's reason and the fix: the user's to act on
        raise WorkspaceError(f"no worktree for this node: {exc}") from exc
    if tree is None:
        problem = await asyncio.to_thread(worktrees.repo_problem, workspace)
        if problem is not None:
            raise WorkspaceError(problem)
        if asked == Isolation.WORKTREE:
            emit({"type": "node.log", "stream": "stderr", "text":
                  f"{ISOLATION_NOTE}worktree has no effect: {workspace} is not in a git "
                  "repository, so the node works in the folder itself"})
        return Ready(workspace)
    if ctx.worktree_ready is not None:
        ctx.worktree_ready()
    if ctx.turn_number == 1 and ctx.attempt == 1 and not ctx.restart:
        note = await asyncio.to_thread(repo_busy.base_note, tree.repo.top)
        if note is not None:  # the user may not know their checkout is mid-operation
            emit({"type": "node.log", "stream": "stderr", "text": WORKSPACE_NOTE + note})
        note = left_out_note(list(tree.left_out))
        if note is not None:  # an agent may look for a file its worktree lacks
            emit({"type": "node.log", "stream": "stderr", "text": WORKSPACE_NOTE + note})
    setup = ctx.config.worktree_setup
    if setup is not None and not setup.empty:  # before settling: its products commit apart
        await set_up(ctx, worktree=tree.path, workdir=tree.workdir, branch=tree.branch,
                     source=workspace, emit=emit, redactor=redactor, command=command)
    if ctx.turn_number == 1 and ctx.attempt == 1 and not ctx.restart:  # after its setup,
        # which may have filled them
        note = await asyncio.to_thread(submodules.submodule_note, tree.path)
        if note is not None:
            emit({"type": "node.log", "stream": "stderr", "text": WORKSPACE_NOTE + note})
    for text in await asyncio.to_thread(_settle, ctx, tree):
        emit({"type": "node.progress", "message": text})
    # where the last turn started: a sender's commit merged since, not by us, was merged
    # by hand (a conflict blocked the node, and a person merged and resumed)
    blocked_at = ctx.node.git.head if ctx.node.git is not None else None
    try:
        merging = await merge_gate.merge_senders(ctx.items, ctx.nodes, tree, ctx.ask_merge,
                                                 emit, blocked_at)
    finally:
        await record_head(ctx, tree, emit)
    if merging is None:  # a sender's submodule update: its files too, where they are here
        for text in await asyncio.to_thread(submodules.catch_up, tree.path):
            emit({"type": "node.progress", "message": text})
    return Ready(tree.workdir, tree, merging)


async def set_up(ctx: TurnContext, *, worktree: Path, workdir: Path, branch: str,
                 source: Path, emit: Emit, redactor: Redactor | None = None,
                 command: Command | None = None) -> None:
    """Copy the node's ignored files from ``source`` (its workspace) into a worktree of
    its (its own, or an attempt's) and run its setup command there, once per worktree
    and branch (desktop/runtime/worktree_setup.py), in the environment its agent gets
    less any API key; the command's output, redacted, goes to ``setup/<worktree>.log``."""
    setup = ctx.config.worktree_setup
    assert setup is not None
    if redactor is None:
        redactor = Redactor.from_env(await asyncio.to_thread(keyring_env),
                                     data_dir=ctx.data_dir)
    log = ctx.run_dir / SETUP_LOGS / f"{worktree.name}.log"
    await asyncio.to_thread(log.parent.mkdir, parents=True, exist_ok=True)
    work = worktree_setup.set_up(
        setup, worktree=worktree, workdir=workdir, branch=branch, source=source,
        env=build_env("", ctx.config.env_allowlist, {}), log_path=log,
        timeout=ctx.config.limits.timeout_sec, redactor=redactor, emit=emit)
    await (command(work) if command is not None else work)


async def record_head(ctx: TurnContext, tree: NodeTree, emit: Emit) -> None:
    """Put the node's worktree, branch, current commit and how far it is ahead of the
    base on its ``git`` record (a ``node.patch``), unless the record already says so:
    where a fork starts the node, and what its card shows."""
    record = {**tree.record(ctx.run_dir), "head": await head(tree),
              "ahead": await asyncio.to_thread(worktrees.ahead, tree.path, tree.base)}
    known = ctx.node.git.to_json_dict() if ctx.node.git is not None else None
    if known != record:
        emit({"type": "node.patch", "patch": {"git": record}})


async def record_ahead(tree: NodeTree, emit: Emit) -> None:
    """After a turn's commit: how many commits the node's branch is now ahead of the run's
    base, on its ``git`` record (``ahead`` alone: ``head`` stays the commit its turn
    started from)."""
    try:
        count = await asyncio.to_thread(worktrees.ahead, tree.path, tree.base)
    except worktrees.GitError:
        return  # the count is for display; the next turn's record puts it right
    emit({"type": "node.patch", "patch": {"git": {"ahead": count}}})


def _settle(ctx: TurnContext, tree: NodeTree) -> list[str]:
    """Put the worktree right (what a dead engine left) and commit what was changed in it
    since the last turn; what was done, as progress lines."""
    notes = worktree_repair.repair(tree)
    name = ctx.node.key or ctx.node.label
    message = worktrees.between_message(ctx.run_id, name, ctx.turn_number)
    if worktree_merge.merge_open(tree):  # a person's, resolved: the commit concludes it
        what = worktree_repair.merging_what(tree)
        message = f"Merge {what} into {tree.branch}, {BY_HAND}\n\n{message}"
        worktrees.commit_all(tree, message)
        return notes  # the merge's own line follows (merge_gate.merge_senders)
    left = worktrees.commit_all(tree, message)
    if left is not None:
        # a restart follows a run that was cut short or failed: both leave work uncommitted
        what = "the agent run before this one left uncommitted" if ctx.restart else \
            "made in the worktree since the last turn"
        notes.append(f"committed the changes {what} in {tree.branch} ({left[:8]})")
    return notes


async def commit_turn(ctx: TurnContext, tree: NodeTree, agent_run_id: str,
                      attempt: int, merging: OpenMerge | None = None) -> str | None:
    """Commit what the agent run changed on the node's branch; the commit, or None.
    With a merge left to the agent (``merging``) the commit concludes it, unless a file
    of it is still conflicted: then nothing is committed and the merge stays open."""
    message = worktrees.turn_message(ctx.run_id, ctx.node.key or ctx.node.label, ctx.node.id,
                                     ctx.turn_number, agent_run_id, attempt)
    if merging is not None and await asyncio.to_thread(worktree_merge.merge_open, tree):
        left = await asyncio.to_thread(merge_conflict.unresolved, tree, merging.files)
        if left:
            return None
        conflict = merging.conflict
        message += (f"\nMerge {conflict.source.branch} into {tree.branch}, its conflicts "
                    f"resolved by the agent\nFrom: {conflict.source.sender}\n"
                    f"Commit: {conflict.commit}\n")
        return await asyncio.to_thread(merge_conflict.conclude, tree, message)
    return await asyncio.to_thread(worktrees.commit_all, tree, message)


async def merge_open(tree: NodeTree) -> bool:
    """Whether a merge is under way in the worktree."""
    return await asyncio.to_thread(worktree_merge.merge_open, tree)


async def start_point(tree: NodeTree) -> str:
    """What an agent run's diff starts from: the worktree's commit, or with a merge under
    way the files as they stand (the merge's conflict markers included), so the diff is
    the agent's change only."""
    if await merge_open(tree):
        snapshot = await workspace_diff.snapshot(tree.path)
        if snapshot is not None:
            return snapshot
    return await head(tree)


async def head(tree: NodeTree) -> str:
    """The worktree's current commit."""
    return await asyncio.to_thread(worktrees.head, tree.path)
