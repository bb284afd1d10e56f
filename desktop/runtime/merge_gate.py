"""The merges before a node's turn, and a merge that conflicts put to a person.

For each sender in the node's inbox (desktop/runtime/worktree_merge.py) the commit it
sent is merged into the node's worktree. A merge that stops at conflicts is kept as it
is, and the node waits on a ``merge`` approval (desktop/contract/merge.py) naming the
branches, the files and their hunks. The decision:

- denied: the merge is undone and :class:`MergeConflict` raised (the engine blocks the
  node and pauses the run until a person merges by hand and resumes);
- a side or a content for every file: applied and the merge committed, then the next
  sender's commit is merged;
- the agent: the files not resolved are left conflicted for the node's agent, whose
  turn runs in that worktree with the conflict in its prompt (:class:`OpenMerge`); its
  commit concludes the merge (desktop/runtime/isolation.py). One merge per turn can go
  to the agent, and it goes last: a merge handed over while other senders wait is undone
  and made again, with the same choices, once they are in.

With no one to ask (no broker), a conflict is undone and raised as before; a turn
cancelled while it waits (the run stopped) undoes the merge too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop.contract.enums import ApprovalStatus
from desktop.runtime import merge_conflict, worktree_merge
from desktop.runtime.worktree_merge import Conflicted, MergeConflict, Merged, Source
from desktop.runtime.worktrees import NodeTree
from desktop.views.approval_text import BY_PERSON

if TYPE_CHECKING:
    from desktop.contract.events import Resolution

Emit = Callable[[dict[str, Any]], None]
AskMerge = Callable[[dict[str, Any]], Awaitable["Resolution"]]


@dataclass
class OpenMerge:
    """A merge left conflicted for the node's agent."""

    conflict: Conflicted
    files: list[str]
    """The files the agent is to resolve."""
    request: dict[str, Any] = field(default_factory=dict)
    """The MergeRequest for those files (the conflict in the agent's prompt)."""


def _progress(emit: Emit, text: str) -> None:
    emit({"type": "node.progress", "message": text})


def _merged_note(merged: Merged, target: str, how: str = "") -> str:
    return (f"merged {merged.source} (from {merged.sender}) into {target} "
            f"({merged.commit[:8]}){how}")


async def _decide(tree: NodeTree, conflict: Conflicted, ask: AskMerge | None, agent: bool,
                  emit: Emit, files: list[str] | None = None) -> dict[str, Any]:
    """Put the conflict to a person: their choice (MergeChoice wire form). Undoes the
    merge and raises MergeConflict when there is no one to ask or they deny it."""
    shown = files if files is not None else conflict.files
    if ask is None:
        await asyncio.to_thread(worktree_merge.abort, tree)
        raise MergeConflict(conflict.source.branch, tree.branch, shown, tree.path)
    request = await asyncio.to_thread(merge_conflict.describe, tree, conflict, files, agent)
    _progress(emit, f"merging {conflict.source.branch} into {tree.branch} conflicts in "
                    f"{', '.join(shown)}: waiting for a decision")
    try:
        resolution = await ask(request)
    except asyncio.CancelledError:  # the run stopped: leave the worktree as before the merge
        await asyncio.shield(asyncio.to_thread(worktree_merge.abort, tree))
        raise
    if resolution.status == ApprovalStatus.DENIED or resolution.merge is None:
        await asyncio.to_thread(worktree_merge.abort, tree)
        why = f" ({resolution.reason})" if resolution.reason else ""
        raise MergeConflict(conflict.source.branch, tree.branch, shown, tree.path,
                            f"the merge was refused{why}")
    return resolution.merge.to_json_dict()


def agent_merged(merging: OpenMerge, branch: str, commit: str) -> dict[str, Any]:
    """The progress event of a merge its node's agent concluded: the same mark a merge
    settled by git or by a person leaves."""
    conflict = merging.conflict
    merged = Merged(conflict.source.branch, commit, conflict.source.sender)
    return {"type": "node.progress",
            "message": _merged_note(merged, branch, ": its conflicts resolved by the agent")}


def _how(choice: dict[str, Any]) -> str:
    """A person's choice in words, for the merge commit and the progress line."""
    parts = [f"{path}: {side}" for path, side in (choice.get("files") or {}).items()]
    parts += [f"{path}: edited" for path in choice.get("contents") or {}]
    return "Resolved by a person: " + "; ".join(parts) if parts else "Resolved by a person"


async def _settle(tree: NodeTree, conflict: Conflicted, choice: dict[str, Any],
                  emit: Emit) -> list[str]:
    """Apply the choice; conclude the merge when nothing is left for the agent. The files
    left conflicted (empty: concluded)."""
    await asyncio.to_thread(merge_conflict.apply, tree, choice)
    left = await asyncio.to_thread(merge_conflict.unresolved, tree, conflict.files)
    if left and choice.get("agent"):
        return left
    how = _how(choice)
    message = merge_conflict.resolved_message(conflict, tree.branch, how)
    commit = await asyncio.to_thread(merge_conflict.conclude, tree, message)
    merged = Merged(conflict.source.branch, commit, conflict.source.sender)
    _progress(emit, _merged_note(merged, tree.branch, f": {how[0].lower()}{how[1:]}"))
    return []


BY_HAND = f"{BY_PERSON} in the worktree"
"""How a merge a person made by hand in the node's worktree, while the node was blocked,
reads on its progress line (the Conversation shows it as it shows the others)."""


async def merge_senders(items: list[Mapping[str, Any]], peers: Mapping[str, Any],
                        tree: NodeTree, ask: AskMerge | None, emit: Emit,
                        since: str | None = None) -> OpenMerge | None:
    """Merge what each sender in ``items`` sent (see the module); the merge left for the
    agent, if one is. ``since``: the worktree's commit when its last turn started
    (None: none did); a sender's commit merged since by a merge not of ours is a merge
    by hand."""
    sources = worktree_merge.inbox_sources(items, peers, tree)
    deferred: tuple[Source, dict[str, Any]] | None = None
    for index, source in enumerate(sources):
        outcome = await asyncio.to_thread(worktree_merge.merge_one, tree, source)
        if isinstance(outcome, Merged):
            _progress(emit, _merged_note(outcome, tree.branch))
        if outcome is None and since is not None:
            by_hand = await asyncio.to_thread(worktree_merge.merged_since, tree, source,
                                              since)
            if by_hand is not None:
                _progress(emit, _merged_note(by_hand, tree.branch, f": {BY_HAND}"))
        if not isinstance(outcome, Conflicted):
            continue
        choice = await _decide(tree, outcome, ask, deferred is None, emit)
        last = index == len(sources) - 1
        if choice.get("agent") and not last:  # the agent's merge goes last
            await asyncio.to_thread(worktree_merge.abort, tree)
            deferred = (source, choice)
            _progress(emit, f"{source.branch} goes to the agent once the other senders' "
                            "work is merged")
            continue
        left = await _settle(tree, outcome, choice, emit)
        if left:
            return await _hand_over(tree, outcome, left, emit)
    if deferred is None:
        return None
    source, choice = deferred
    outcome = await asyncio.to_thread(worktree_merge.merge_one, tree, source)
    if isinstance(outcome, Merged):
        _progress(emit, _merged_note(outcome, tree.branch))
    if not isinstance(outcome, Conflicted):
        return None
    kept = {key: {p: v for p, v in (choice.get(key) or {}).items() if p in outcome.files}
            for key in ("files", "contents")}
    left = await _settle(tree, outcome, {**kept, "agent": True}, emit)
    return await _hand_over(tree, outcome, left, emit) if left else None


async def ask_again(tree: NodeTree, merging: OpenMerge, ask: AskMerge | None,
                    emit: Emit) -> OpenMerge | None:
    """The agent's turn left files of the merge conflicted: ask again about those; the
    merge still left for the agent (None: concluded)."""
    left = await asyncio.to_thread(merge_conflict.unresolved, tree, merging.conflict.files)
    if not left:
        return None
    choice = await _decide(tree, merging.conflict, ask, True, emit, left)
    left = await _settle(tree, merging.conflict, choice, emit)
    return await _hand_over(tree, merging.conflict, left, emit) if left else None


async def _hand_over(tree: NodeTree, conflict: Conflicted, left: list[str],
                     emit: Emit) -> OpenMerge:
    request = await asyncio.to_thread(merge_conflict.describe, tree, conflict, left)
    _progress(emit, f"the conflicts of {conflict.source.branch} in {', '.join(left)} go to "
                    "the agent")
    return OpenMerge(conflict, left, request)


async def undo(tree: NodeTree) -> None:
    """Undo the merge under way (the turn that had it was stopped)."""
    await asyncio.to_thread(worktree_merge.abort, tree)


__all__ = ["AskMerge", "OpenMerge", "ask_again", "merge_senders", "undo"]
