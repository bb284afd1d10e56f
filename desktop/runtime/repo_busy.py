"""Whether the user's repository is in the middle of a rebase, a merge, a cherry-pick, a
revert or ``git am``, which taking a run's result must wait for (and, onto the working
tree, a git command of theirs holding the index: ``index.lock``).

Applied onto the working tree then, the result's files would be swept into whatever
commit the operation makes next (``git add -A && git rebase --continue``); made a
branch during a rebase, it would sit on the commit being rewritten, which is not the
user's branch. So both are refused, naming the operation and how to finish or undo it.
A merge, cherry-pick, revert or ``am`` leaves HEAD on the user's branch, so a new branch
there is still allowed.
"""

from __future__ import annotations

from pathlib import Path

from desktop.runtime.git_operation import busy_with, git_path
from desktop.runtime.run_result import ResultError
from desktop.runtime.worktree_repair import conflicts


class RepoBusy(ResultError):
    """The repository is in the middle of an operation; the message names it and the fix."""


def base_note(repo: Path) -> str | None:
    """What a node should know when its worktree starts from ``repo`` in the middle of an
    operation, or with files in conflict (their markers go into the run's base as they
    are); None when neither."""
    found = busy_with(repo)
    conflicted = conflicts(repo)
    if found is None and not conflicted:
        return None
    parts = []
    if found is not None:
        parts.append(f"{repo} is in the middle of {found[0]}")
    if conflicted:
        shown = ", ".join(conflicted[:5]) + (f" and {len(conflicted) - 5} more"
                                              if len(conflicted) > 5 else "")
        many = "s have" if len(conflicted) != 1 else " has"
        parts.append(f"{len(conflicted)} file{many} unresolved conflicts ({shown}): the "
                     "run's base takes them as they are, conflict markers included")
    if found is not None:
        what = found[0].removeprefix("a ")
        the = what if what == found[0] else f"the {what}"  # `git am` has no article
        parts.append(f"the run's result can be applied once {the} is finished or aborted")
    return "; ".join(parts)


def refuse_if_busy(repo: Path, *, branch: bool) -> None:
    """Raise RepoBusy when ``repo`` is mid-operation and the result must wait for it (a
    new ``branch`` waits only for a rebase: the others keep HEAD on the user's branch),
    or, for the working tree, while a git command of theirs holds the index."""
    lock = None if branch else git_path(repo, "index.lock")
    if lock is not None and lock.exists():
        # git itself refuses then: a checkout or stash at work rewrites the very files
        # the result would be written into
        raise RepoBusy(f"a git command is at work in {repo} ({lock} is there); apply again "
                       "once it is done. If no git is running, one that crashed left the "
                       f"file: remove it. Or take the result as a new branch now: --branch "
                       "NAME; nothing was changed")
    found = busy_with(repo)
    if found is None:
        return
    what, command = found
    rebase = what == "a rebase"
    if branch and not rebase:
        return
    other = "" if rebase else " (or take it as a new branch now: --branch NAME)"
    raise RepoBusy(f"{repo} is in the middle of {what}; finish it (`{command} --continue`) "
                   f"or undo it (`{command} --abort`), then apply again{other}; nothing "
                   "was changed")


__all__ = ["RepoBusy", "busy_with", "refuse_if_busy"]
