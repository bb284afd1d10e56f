"""Undoing an application of a run's result to the user's working tree.

Applying onto the working tree keeps, under ``refs/canvas/<run8>/applied/<n>``, a commit
of the tree it left whose parent is the user's state just before it (their HEAD plus
everything uncommitted, untracked files too): desktop/runtime/result_apply.py. Undo is
the same three-way merge as applying, backwards: with the tree the application left as
the merge base, *ours* is the user's state now and *theirs* their state before. So an
edit made since, to another file or elsewhere in the same one, stays; one that collides
with what undo puts back stops it whole, and nothing is changed. Their index, HEAD and
branches are never touched. Once undone, the record says so and the ref is deleted.

An application killed while it wrote the files (recorded as under way) is undone the
same way: a file it had not written yet is already as before, and stays so.

Applications are undone latest first: an older one's "after" is what the later one
started from, not what the files hold.
"""

from __future__ import annotations

from desktop.runtime.apply_lock import hold_apply_lock
from desktop.runtime.git_base import big_untracked, capture, written_in
from desktop.runtime.git_run import git, must
from desktop.runtime.repo_busy import refuse_if_busy
from desktop.runtime.result_apply import ApplyOutcome, merge_trees, onto_working_tree
from desktop.runtime.run_result import ResultError, RunPlace, RunResult, changed_files
from desktop.store.applied import mark_undone, read_applied, utc_stamp
from desktop.views.result import undoable
from desktop.wording import plural


class NothingToUndo(ResultError):
    """The run has no application to the working tree left to undo."""


def undo_apply(result: RunPlace | RunResult, *, check: bool = False) -> ApplyOutcome:
    """Put the files the latest application onto the working tree changed back as they
    were before it, whether or not the run's result branch is still there; ``check``: say
    what it would do and change nothing. Raises NothingToUndo when there is nothing to
    undo, ResultError when the state before it is gone, ApplyBusy while an application of
    the run is under way, RepoBusy while the repository is mid-operation."""
    if check:
        return _undo(result, check=True)
    with hold_apply_lock(result.run_dir):
        return _undo(result, check=False)


def _undo(result: RunPlace | RunResult, *, check: bool) -> ApplyOutcome:
    repo = result.repo
    records = read_applied(result.run_dir)
    record = undoable(records)
    if record is None:
        made = [str(r["branch"]) for r in records if r.get("target") == "branch"]
        branch = f" (a branch made from it, like {made[-1]}, goes with `git branch -D " \
                 f"{made[-1]}`)" if made else ""
        raise NothingToUndo(f"run {result.run_id[:8]} has no application to your working tree "
                            f"to undo{branch}")
    ref, at = str(record["undo"]), str(record.get("at", "?"))
    after = git(repo, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
    if not after.ok:
        raise ResultError(f"the state before the application of {at} is gone from {repo} "
                          f"({ref} was deleted); nothing was changed")
    refuse_if_busy(repo, branch=False)
    before_tree = must(repo, "rev-parse", f"{after.text}^^{{tree}}")
    # as when applying: a big untracked file the application did not write stays out
    wrote = set(record.get("files") or [])
    aside = [p for p in big_untracked(repo, [result.run_dir]) if not written_in(p, wrote)]
    now = capture(repo, "Agent Canvas: your working tree", [result.run_dir], aside)
    now_tree = must(repo, "rev-parse", f"{now}^{{tree}}")

    def on_after(tree: str, what: str) -> str:
        return must(repo, "commit-tree", tree, "-p", after.text, "-m", f"Agent Canvas: {what}")

    merged, collisions = merge_trees(repo, on_after(now_tree, "your state"),
                                     on_after(before_tree, "before the application"))
    if merged is None:
        verb = "would collide" if check else "collides" if len(collisions) == 1 else "collide"
        return ApplyOutcome("worktree", False, collisions=collisions, message=(
            f"{plural(len(collisions), 'file')} {verb} with changes you made after applying; "
            "nothing was changed"))
    touched = [f.path for f in changed_files(repo, now_tree, merged)]
    if check:
        return ApplyOutcome("worktree", False, files=touched, message=(
            f"would put back {plural(len(touched), 'file')} as before the application of {at}"
            if touched else "nothing to put back: your files are as before the application"))
    if touched:
        failed = onto_working_tree(repo, now_tree, merged)
        if failed:
            return ApplyOutcome("worktree", False, collisions=touched, message=(
                f"your working tree changed while undoing; nothing was changed ({failed})"))
    mark_undone(result.run_dir, ref, utc_stamp())
    git(repo, "update-ref", "-d", ref, after.text)
    return ApplyOutcome("worktree", True, files=touched, message=(
        f"undid the application of {at}: {plural(len(touched), 'file')} put back as before it"))
