"""Why a node waits on a merge: undone (refused, or git could not merge), or left open by
a person with files still conflicted.

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


__all__ = ["MergeConflict", "MergeLeftOpen"]
