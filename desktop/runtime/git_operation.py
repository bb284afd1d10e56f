"""Which git operation a checkout is in the middle of: a rebase, a merge, a cherry-pick, a
revert or ``git am``, told by what git leaves in its folder until it is finished or
aborted. Used for the user's repository (desktop/runtime/repo_busy.py) and for a node's
worktree a person worked in (desktop/runtime/worktree_repair.py).

Blocking: run on a worker thread.
"""

from __future__ import annotations

from pathlib import Path

from desktop.runtime.git_run import git

_OPERATIONS = (
    # (what git leaves in its folder, what it is, its command)
    ("rebase-merge", "a rebase", "git rebase"),
    ("rebase-apply/applying", "`git am`", "git am"),
    ("rebase-apply", "a rebase", "git rebase"),
    ("MERGE_HEAD", "a merge", "git merge"),
    ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick"),
    ("REVERT_HEAD", "a revert", "git revert"),
)
MERGE = "a merge"


def git_path(repo: Path, name: str) -> Path | None:
    """Where ``name`` is in ``repo``'s git folder (a worktree's own one for a worktree)."""
    found = git(repo, "rev-parse", "--git-path", name)
    if not found.ok:
        return None
    path = Path(found.text)
    return path if path.is_absolute() else repo / path


def busy_with(repo: Path) -> tuple[str, str] | None:
    """(what, its command) of the operation ``repo`` is in the middle of, else None."""
    for marker, what, command in _OPERATIONS:
        path = git_path(repo, marker)
        if path is not None and path.exists():
            return what, command
    return None


__all__ = ["MERGE", "busy_with", "git_path"]
