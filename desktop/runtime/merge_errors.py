"""Why a node waits on a merge: undone (refused, or git could not merge), left open by a
person with files still conflicted, or another git operation of a person's (a rebase, a
cherry-pick) under way in its worktree.

Both block the node and pause the run (desktop/runtime/dispatch.py) with the node's input
kept in its inbox; the message says what to do before resuming.
"""

from __future__ import annotations

from pathlib import Path


class MergeConflict(RuntimeError):
    """Merging ``source`` into ``target`` conflicts in ``files``; nothing was changed."""

    def __init__(self, source: str, target: str, files: list[str], worktree: Path,
                 detail: str = "") -> None:
        self.source, self.target, self.files = source, target, list(files)
        self.worktree, self.detail = worktree, detail
        super().__init__(self.explain())

    def shown(self) -> str:
        """The files (and the detail), or what git said when no file conflicts."""
        shown = ", ".join(self.files) if self.files else self.detail or "git could not merge"
        if self.files and self.detail:
            shown += f" ({self.detail})"
        return shown

    def summary(self) -> str:
        """The node's summary while it waits."""
        return f"merge conflict with {self.source}"

    def explain(self) -> str:
        """What happened and what the person does next."""
        return (f"merging {self.source} into {self.target} conflicts in {self.shown()}; the "
                f"merge was undone and the node waits. Merge it yourself in {self.worktree} "
                f"(git merge {self.source}, fix the files, git add or commit them), then "
                "resume the run")


class MergeLeftOpen(MergeConflict):
    """A merge a person started in the node's worktree has files still conflicted; it is
    kept as it is (their work in it too) and the node waits."""

    def explain(self) -> str:
        return (f"the merge of {self.source} into {self.target} under way in "
                f"{self.worktree} still has conflicts in {self.shown()}; it was kept as it "
                "is and the node waits. Fix those files and git add them (or undo the merge "
                "with git merge --abort), then resume the run")


class OperationUnderWay(MergeConflict):
    """A rebase, cherry-pick, revert or ``git am`` of a person's is under way in the node's
    worktree: a turn there would commit into the middle of it, so the node waits."""

    def __init__(self, what: str, command: str, target: str, worktree: Path) -> None:
        self.what, self.command = what, command
        super().__init__(what, target, [], worktree)

    def summary(self) -> str:
        return f"{self.what} under way in its worktree"

    def explain(self) -> str:
        return (f"{self.what} is under way in {self.worktree}, the worktree of "
                f"{self.target}; it was kept as it is and the node waits. Finish it "
                f"({self.command} --continue) or undo it ({self.command} --abort), then "
                "resume the run")


__all__ = ["MergeConflict", "MergeLeftOpen", "OperationUnderWay"]
