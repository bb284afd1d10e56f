"""Code travels with the messages: a node's worktree merges its senders' branches.

Before a node's turn, each handoff or report in its inbox whose sender works on a
branch of the same repository brings the sender's work in: ``git merge`` of the commit
the sender was at when it sent the envelope (``envelope.commit``; not what its branch
did later), unless the node's branch already has it. Conflict markers (diff3 style,
with the base) name the sender's branch while it is still at that commit. While a
merge runs or waits, a file beside the worktree says so, for
:mod:`desktop.runtime.worktree_repair` after a crash.

A merge that stops at conflicts is left open (:class:`Conflicted`) for a person to
resolve (desktop/runtime/merge_conflict.py, desktop/runtime/merge_gate.py); one undone,
at a person's word or because git cannot merge at all, is a :class:`MergeConflict`
naming the branches and the conflicting files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.runtime.git_run import GitError
from desktop.runtime.merge_errors import MergeConflict
from desktop.runtime.worktree_repair import begin_merge, conflicts, end_merge
from desktop.runtime.worktrees import NodeTree


@dataclass(frozen=True)
class Source:
    """A sender's work to merge: its branch, its name, and the commit it sent (None for
    an envelope from before commits were recorded: the branch's tip)."""

    branch: str
    sender: str
    commit: str | None = None


@dataclass(frozen=True)
class Merged:
    """One branch merged into a worktree."""

    source: str
    commit: str
    """The worktree's new HEAD."""
    sender: str


def _worker(peers: Mapping[str, Any], sender: Any) -> Any:
    """The node whose branch holds what ``sender`` sent: the sender itself, or for a
    subflow node the entry node its output comes from (through nested subflows)."""
    node = peers.get(sender) if isinstance(sender, str) else None
    seen: set[str] = set()
    while node is not None and getattr(node, "subflow_entry", None) and node.id not in seen:
        seen.add(node.id)
        node = peers.get(node.subflow_entry)
    return node


def inbox_sources(items: Iterable[Mapping[str, Any]], peers: Mapping[str, Any],
                  tree: NodeTree) -> list[Source]:
    """The senders of the handoffs and reports in ``items`` (and of the envelopes a
    subflow's tasks came in) that work in the same repository as ``tree``, in inbox
    order, once each with the commit of its last envelope (``peers``: node id ->
    ``NodeState`` of the run; a subflow node sends what its entry node's branch holds)."""
    found: dict[str, Source] = {}
    for item in items:
        envelope = item.get("envelope") or {}
        sender = envelope.get("fromNodeId") if item.get("kind") in ("handoff", "report",
                                                                    "task") else None
        node = _worker(peers, sender)
        record = getattr(node, "git", None)
        if record is None or record.branch == tree.branch:
            continue
        if Path(record.common_dir) != tree.repo.common_dir:
            continue  # another repository: its code cannot travel here
        commit = envelope.get("commit") if isinstance(envelope.get("commit"), str) else None
        found.pop(record.branch, None)  # a later envelope of the sender's: its later commit
        found[record.branch] = Source(record.branch, node.key or node.label, commit)
    return list(found.values())


@dataclass(frozen=True)
class Conflicted:
    """A merge stopped at conflicts, left so in the worktree (``MERGE_HEAD`` set, the
    files with their markers) for a person or the agent to resolve."""

    source: Source
    commit: str
    """The commit being merged."""
    files: list[str]


def merge_one(tree: NodeTree, source: Source) -> Merged | Conflicted | None:
    """Merge the commit ``source`` sent (else its branch's tip) into the worktree; None
    when the worktree has it already, :class:`Conflicted` when it stops at conflicts
    (the merge left open), MergeConflict (the merge undone) when git cannot merge at
    all."""
    ref = source.commit or f"refs/heads/{source.branch}"
    tip = tree.git("rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
    if not tip.ok:
        return None
    if tree.git("merge-base", "--is-ancestor", tip.text, "HEAD").ok:
        return None
    message = (f"Merge {source.branch} into {tree.branch}\n\nFrom: {source.sender}\n"
               f"Commit: {tip.text}\n")
    begin_merge(tree)
    # merged by the branch's name while it is still at the commit sent, so the conflict
    # markers name the branch (else the commit)
    branch = tree.git("rev-parse", "--verify", "-q", f"refs/heads/{source.branch}")
    what = source.branch if branch.ok and branch.text == tip.text else tip.text
    result = tree.git("-c", "rerere.enabled=false", "-c", "merge.conflictStyle=diff3",
                 "merge", "--ff", "--no-edit", "--no-verify-signatures", "--no-squash",
                 "-m", message, what)
    if result.ok:
        end_merge(tree)
        return Merged(source.branch, tree.must("rev-parse", "HEAD"), source.sender)
    files = conflicts(tree.path)
    if files and merge_open(tree):
        return Conflicted(source, tip.text, files)
    abort(tree)
    raise MergeConflict(source.branch, tree.branch, files, tree.path, result.reason())


def merged_since(tree: NodeTree, source: Source, before: str) -> Merged | None:
    """The merge that brought the commit ``source`` sent into the worktree after
    ``before`` (a person merging by hand between turns), or None when ``before`` had it
    already, the worktree still lacks it or the merge is one of the engine's (its message
    names the commit merged). Its commit is the first merge commit on the
    way from the sent commit to HEAD (the sent commit itself when fast-forwarded)."""
    ref = source.commit or f"refs/heads/{source.branch}"
    tip = tree.git("rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
    if not tip.ok or tree.git("merge-base", "--is-ancestor", tip.text, before).ok:
        return None
    if not tree.git("merge-base", "--is-ancestor", tip.text, "HEAD").ok:
        return None
    merges = tree.git("rev-list", "--ancestry-path", "--merges", "--reverse",
                 f"{tip.text}..HEAD")
    first = merges.text.split("\n", 1)[0] if merges.ok and merges.text else tip.text
    said = tree.git("log", "-1", "--format=%B", first)
    if f"\nCommit: {tip.text}\n" in f"\n{said.text}\n":
        return None  # our own merge (merge_one, a decision, the agent's): told already
    return Merged(source.branch, first, source.sender)


def merge_open(tree: NodeTree) -> bool:
    """Whether a merge is under way in the worktree."""
    return tree.git("rev-parse", "--verify", "-q", "MERGE_HEAD").ok


def abort(tree: NodeTree) -> None:
    """Undo the merge under way (if any): the worktree as it was before it."""
    if merge_open(tree):
        tree.must("merge", "--abort")
    end_merge(tree)


__all__ = ["Conflicted", "GitError", "MergeConflict", "Merged", "Source", "abort",
           "conflicts", "inbox_sources", "merge_one", "merge_open", "merged_since"]
