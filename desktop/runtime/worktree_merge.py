"""Code travels with the messages: a node's worktree merges its senders' branches.

Before a node's turn, each handoff or report in its inbox whose sender works on a
branch of the same repository brings that branch in: ``git merge`` of the branch's
tip, unless the node's branch already has it. A merge that conflicts is aborted
(``git merge --abort``), leaving the worktree as it was, and :class:`MergeConflict`
names the branches and the conflicting files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.runtime.git_run import GitError, git, must
from desktop.runtime.worktrees import NodeTree


class MergeConflict(RuntimeError):
    """Merging ``source`` into ``target`` conflicts in ``files``; nothing was changed."""

    def __init__(self, source: str, target: str, files: list[str], worktree: Path,
                 detail: str = "") -> None:
        self.source, self.target, self.files = source, target, list(files)
        self.worktree, self.detail = worktree, detail
        shown = ", ".join(self.files) if self.files else detail or "git could not merge"
        super().__init__(
            f"merging {source} into {target} conflicts in {shown}; the merge was undone and "
            f"the node waits. Merge it yourself in {worktree} (git merge {source}, fix the "
            "files, git commit), then resume the run")


@dataclass(frozen=True)
class Merged:
    """One branch merged into a worktree."""

    source: str
    commit: str
    """The worktree's new HEAD."""
    sender: str


def inbox_sources(items: Iterable[Mapping[str, Any]], peers: Mapping[str, Any],
                  tree: NodeTree) -> list[tuple[str, str]]:
    """(branch, sender's name) of the senders of the handoffs and reports in ``items``
    that work in the same repository as ``tree``, in inbox order, once each (``peers``:
    node id -> ``NodeState`` of the run)."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for item in items:
        envelope = item.get("envelope") or {}
        sender = envelope.get("fromNodeId") if item.get("kind") in ("handoff", "report") \
            else None
        node = peers.get(sender) if isinstance(sender, str) else None
        record = getattr(node, "git", None)
        if record is None or record.branch == tree.branch or record.branch in seen:
            continue
        if Path(record.common_dir) != tree.repo.common_dir:
            continue  # another repository: its code cannot travel here
        seen.add(record.branch)
        found.append((record.branch, node.key or node.label))
    return found


def _conflicts(folder: Path) -> list[str]:
    listed = git(folder, "diff", "--name-only", "--diff-filter=U", "-z")
    return [name for name in listed.out.decode("utf-8", "replace").split("\0") if name]


def merge_one(tree: NodeTree, source: str, sender: str) -> Merged | None:
    """Merge branch ``source`` into the worktree; None when it has nothing new.
    MergeConflict (after undoing the merge) when it conflicts."""
    tip = git(tree.path, "rev-parse", "--verify", "-q", f"refs/heads/{source}^{{commit}}")
    if not tip.ok:
        return None
    if git(tree.path, "merge-base", "--is-ancestor", tip.text, "HEAD").ok:
        return None
    message = f"Merge {source} into {tree.branch}\n\nFrom: {sender}\nCommit: {tip.text}\n"
    result = git(tree.path, "-c", "rerere.enabled=false", "merge", "--ff", "--no-edit",
                 "--no-verify-signatures", "--no-squash", "-m", message, tip.text)
    if result.ok:
        return Merged(source, must(tree.path, "rev-parse", "HEAD"), sender)
    files = _conflicts(tree.path)
    if git(tree.path, "rev-parse", "--verify", "-q", "MERGE_HEAD").ok:
        must(tree.path, "merge", "--abort")
    raise MergeConflict(source, tree.branch, files, tree.path, result.reason())


def abort_left_merge(tree: NodeTree) -> bool:
    """Undo a merge a dead engine left half done in the worktree; True if there was one."""
    if not git(tree.path, "rev-parse", "--verify", "-q", "MERGE_HEAD").ok:
        return False
    must(tree.path, "merge", "--abort")
    return True


__all__ = ["GitError", "MergeConflict", "Merged", "abort_left_merge",
           "inbox_sources", "merge_one"]
