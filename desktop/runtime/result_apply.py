"""Taking a run's result into the user's repository: onto their working tree, or as a
new branch; all of it or the files they accepted.

Both are a three-way merge with the run's base as the merge base:

- *theirs* is the result branch's tip, with the files the user rejected put back as
  they were in the base;
- *ours* is the user's state now: for ``worktree``, their HEAD plus everything
  uncommitted (captured as desktop/runtime/git_base.py does, without touching their
  index or files); for a branch, their HEAD.

Both sides are given the base as their parent, so ``git merge-tree`` merges against it
(git 2.39 has no ``--merge-base``). A merge that conflicts changes nothing and names
the files that collide. A clean one lands as:

- ``worktree``: the difference between their state and the merged tree, applied to the
  working tree by ``git apply``, which checks every file before it writes any, so a
  file they changed meanwhile stops it whole; their index and HEAD stay as they were,
  and each uncommitted change of theirs is in the merge, so none is lost;
- a branch: a commit of the merged tree on top of their HEAD, under the name they gave
  (never an existing branch); their checkout is not touched.

Every application is recorded in the run folder (desktop/store/applied.py); one onto
the working tree keeps the state it changed, so it can be undone
(desktop/runtime/result_undo.py), and is recorded before it writes a file, so one
killed while it writes can be undone too; its ref is always a new one. One application
of a run runs at a time, whichever process asks: a second is refused at once
(desktop/runtime/apply_lock.py).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from desktop.runtime import secret_scan, submodules
from desktop.runtime.apply_lock import hold_apply_lock
from desktop.runtime.branch_name import BadBranchName, check_new_branch
from desktop.runtime.git_base import applied_refs, big_untracked, capture, run8, written_in
from desktop.runtime.git_run import GitError, git, must
from desktop.runtime.repo_busy import refuse_if_busy
from desktop.runtime.run_result import ResultError, ResultFile, RunResult, changed_files
from desktop.store.applied import (
    UNDER_WAY,
    drop_applied,
    finish_applied,
    read_applied,
    record_applied,
    utc_stamp,
)
from desktop.views.result_words import BRANCH_WHY, collides, either, remedies
from desktop.views.secret_words import SecretFound, refusal
from desktop.wording import plural

Target = Literal["worktree", "branch"]


@dataclass(frozen=True)
class ApplyOutcome:
    """What an application did, or would do (``check``)."""

    target: Target
    applied: bool
    files: list[str] = field(default_factory=list)
    """The files it changes in the user's repository (or on the new branch)."""
    collisions: list[str] = field(default_factory=list)
    """The files whose change collides with the user's; non-empty: nothing was changed."""
    branch: str | None = None
    commit: str | None = None
    """The new branch's commit."""
    message: str = ""
    secrets: list[SecretFound] = field(default_factory=list)
    """The files that would carry a secret value, with its name; non-empty: refused,
    nothing was changed."""

    def to_json(self) -> dict[str, Any]:
        """The outcome as the API and ``runs apply --json`` give it."""
        return {"target": self.target, "applied": self.applied, "files": self.files,
                "collisions": self.collisions, "branch": self.branch, "commit": self.commit,
                "message": self.message, "secrets": [f.to_json() for f in self.secrets]}


_NAMED = 10
"""Most files a message names; a request may list a hundred thousand."""


def _some(paths: list[str]) -> str:
    """``paths`` for a message: the first few, and how many more."""
    more = len(paths) - _NAMED
    return ", ".join(paths[:_NAMED]) + (f" and {more:,} more" if more > 0 else "")


def _chosen(result: RunResult, files: list[str] | None) -> list[str]:
    if files is None:
        return result.paths()
    if not files:
        raise ResultError("no files were given: list the files to apply (the result's "
                          "files), or leave files out to apply them all")
    changed = set(result.paths())
    wanted = list(dict.fromkeys(files))
    unknown = [f for f in wanted if f not in changed]
    if unknown:
        raise ResultError(f"run {result.run_id[:8]} did not change {_some(unknown)}; "
                          f"its files are: {_some(result.paths()) or 'none'}")
    return wanted


def _theirs(result: RunResult, chosen: list[str], index: str) -> str:
    """A commit on the base of the accepted files' result (the others as in the base)."""
    if set(chosen) == set(result.paths()):
        tree = must(result.repo, "rev-parse", f"{result.commit}^{{tree}}")
    else:
        tree = _spliced(result.repo, result.base, result.commit, chosen, index)
    return _on_base(result, tree, "the run's result")


def _spliced(repo: Path, tree: str, source: str, paths: list[str], index: str) -> str:
    """Tree ``tree`` with ``paths`` as they are in ``source`` (gone where it has none),
    written through the scratch ``index``."""
    must(repo, "read-tree", tree, index=index)
    wanted = {p.encode("utf-8", "surrogateescape") for p in paths}
    listed = git(repo, "ls-tree", "-r", "-z", "--full-tree", source).out
    entries = [e for e in listed.split(b"\0") if e.partition(b"\t")[2] in wanted]
    gone = wanted - {e.partition(b"\t")[2] for e in entries}
    if gone:
        must(repo, "update-index", "-z", "--force-remove", "--stdin",
             stdin=b"".join(p + b"\0" for p in sorted(gone)), index=index)
    if entries:
        must(repo, "update-index", "-z", "--index-info",
             stdin=b"".join(e + b"\0" for e in entries), index=index)
    return must(repo, "write-tree", index=index)


def _on_base(result: RunResult, tree: str, what: str) -> str:
    return must(result.repo, "commit-tree", tree, "-p", result.base,
                "-m", f"Agent Canvas: {what} (run {run8(result.run_id)})")


def merge_trees(repo: Path, ours: str, theirs: str) -> tuple[str | None, list[str]]:
    """The merged tree of commits ``ours`` and ``theirs`` (their common parent the merge
    base), or None and the files that collide, by their own paths."""
    merged = git(repo, "merge-tree", "--write-tree", "--no-messages", "--name-only",
                 "-z", ours, theirs)
    if merged.code not in (0, 1):
        raise GitError(f"git merge-tree in {repo} failed: {merged.reason()}")
    parts = [p for p in merged.out.decode("utf-8", "surrogateescape").split("\0") if p]
    if merged.code == 0:
        return parts[0], []
    # where one side has a file and the other a folder (or a file of another type), git
    # moves one aside as PATH~<that side's commit>[_N] and lists that name, which is
    # nobody's: the user's path is PATH
    aside = re.compile(rf"~(?:{re.escape(ours)}|{re.escape(theirs)})(?:_\d+)?$")
    return None, sorted({aside.sub("", p) for p in parts[1:]})


def _shapes(repo: Path, ours: str, theirs: str, collisions: list[str],
            paths: list[str]) -> str:
    """What the message adds of the colliding paths that are a file on one side and a
    folder on the other (``paths``: the result's files, to name one it would write)."""
    asked = [p for p in collisions[:_NAMED] if "\n" not in p]
    if not asked:
        return ""
    lines = "".join(f"{side}:{p}\n" for p in asked for side in (ours, theirs))
    found = git(repo, "cat-file", "--batch-check=%(objecttype)", stdin=lines.encode(
        "utf-8", "surrogateescape")).out.decode("utf-8", "surrogateescape").splitlines()
    notes = []
    for path, mine, result in zip(asked, found[0::2], found[1::2], strict=False):
        if (mine, result) == ("blob", "tree"):
            under = next((p for p in paths if p.startswith(f"{path}/")), None)
            notes.append(f"{path} is a file of yours where the result needs a folder"
                         + (f" (for {under})" if under else "") + ": move your file, or "
                         f"leave out the result's files under {path}")
        elif (mine, result) == ("tree", "blob"):
            notes.append(f"{path} is a folder of yours where the result writes a file: "
                         f"move your folder, or leave out the result's {path}")
    return "".join(f"; {note}" for note in notes)


def _head(repo: Path) -> str | None:
    found = git(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    return found.text if found.ok else None


def _empty_tree(repo: Path) -> str:
    return must(repo, "mktree", stdin=b"")


def _message(result: RunResult, files: list[str]) -> str:
    listed = "\n".join(f"  {p}" for p in files[:50])
    more = f"\n  ... and {len(files) - 50} more" if len(files) > 50 else ""
    return (f"Result of run {run8(result.run_id)} ({result.node})\n\n"
            f"The change of branch {result.branch} against the run's base, to:\n"
            f"{listed}{more}\n\nRun: {result.run_id}\nResult-Commit: {result.commit}\n")


def _collision(count: int, branch: str | None, check: bool) -> str:
    """Why nothing was (or would be) changed, in the words of where it lands."""
    said = collides(count, branch, check=check)
    if not branch:
        return f"{said}; nothing was changed"
    fix = either(remedies(branch))
    return f"{said}: {BRANCH_WHY}. {fix[:1].upper()}{fix[1:]}; nothing was changed"


def _in_the_way(repo: Path, changes: Sequence[ResultFile]) -> list[str]:
    """The files the result adds that the working tree holds all the same: ignored, so
    not in the state captured of it, and ``git apply`` would refuse to write over them."""
    return [f.path for f in changes if f.status == "added"
            and os.path.lexists(repo / f.path)]


def onto_working_tree(repo: Path, ours: str, merged: str) -> str | None:
    """Write the difference from tree ``ours`` (the working tree's state) to ``merged``
    into the working tree; why not, when it was not (then nothing was written: ``git
    apply`` checks every file before it writes any)."""
    patch = git(repo, "diff", "--binary", "--full-index", "--no-renames", ours, merged).out
    done = git(repo, "apply", "--whitespace=nowarn", "-", stdin=patch)
    return None if done.ok else f"git apply: {done.reason()}"


def _undo_point(result: RunResult, before: str, merged: str) -> str:
    """Keep the working tree's state before and after an application, for undo: a commit
    of ``merged`` whose parent is ``before``, under a new ref of the run (deleted with
    it); the ref's name."""
    after = must(result.repo, "commit-tree", merged, "-p", before, "-m",
                 f"Agent Canvas: your working tree after applying run {run8(result.run_id)}")
    ref = _next_undo_ref(result)
    # created only if it is not there: a ref another application kept is never replaced
    must(result.repo, "update-ref", "-m", "agent-canvas: applied", ref, after, "")
    return ref


def _next_undo_ref(result: RunResult) -> str:
    """The next ``applied/<n>`` ref of the run: past every one there is and every one a
    record names (an apply killed before recording leaves a ref; an undone one's record
    names a ref that is gone), so no number is taken twice."""
    prefix = applied_refs(result.run_id)
    listed = must(result.repo, "for-each-ref", "--format=%(refname)", prefix).splitlines()
    named = [str(r.get("undo") or "") for r in read_applied(result.run_dir)]
    taken = [int(ref[len(prefix):]) for ref in [*listed, *named]
             if ref.startswith(prefix) and ref[len(prefix):].isdigit()]
    return f"{prefix}{max(taken, default=0) + 1}"


def apply_result(result: RunResult, *, files: list[str] | None = None,
                 branch: str | None = None, check: bool = False,
                 allow_secrets: bool = False) -> ApplyOutcome:
    """Apply ``result`` (only ``files`` when given) onto the user's working tree, or as
    new branch ``branch``; ``check``: say what it would do and change nothing.

    A result whose accepted files hold the value of a secret an agent was given is
    refused (``secrets`` names them, nothing is changed) unless ``allow_secrets``.

    Raises RunWorking while an engine still works on the run (its branches move: what
    landed would be part of its result), a check too; ApplyBusy when another application
    of the run is under way (in this process or another: desktop/runtime/apply_lock.py);
    a check, which writes nothing of the user's, goes on beside one."""
    result.refuse_if_working()
    if check:
        return _apply(result, files, branch, check=True, allow_secrets=allow_secrets)
    with hold_apply_lock(result.run_dir):
        return _apply(result, files, branch, check=False, allow_secrets=allow_secrets)


def _apply(result: RunResult, files: list[str] | None, branch: str | None, *,
           check: bool, allow_secrets: bool) -> ApplyOutcome:
    chosen = _chosen(result, files)
    # an empty name is a bad name, not "no branch": `--branch "$NAME"` with NAME unset
    # must not land on the working tree the user meant to leave alone
    target: Target = "worktree" if branch is None else "branch"
    if branch is not None:
        check_new_branch(result.repo, branch)
    refuse_if_busy(result.repo, branch=branch is not None)
    with tempfile.TemporaryDirectory(prefix="agent-canvas-apply-") as scratch:
        theirs = _theirs(result, chosen, str(Path(scratch) / "index"))
        # the result as applied: a file the user rejected carries nothing
        found = [] if allow_secrets else secret_scan.result_secrets(result, theirs, chosen)
        if found:
            return ApplyOutcome(target, False, branch=branch, secrets=found,
                                message=refusal(found, branch=result.branch, check=check))
        head = _head(result.repo)
        now = ""  # the working tree's state before: what undo puts back
        if branch:
            ours_tree = must(result.repo, "rev-parse", f"{head}^{{tree}}") if head \
                else _empty_tree(result.repo)
        else:
            # a big untracked file the result leaves alone need not be copied into the
            # repository's objects: the application never writes it
            changed = set(result.paths())
            aside = [p for p in big_untracked(result.repo, [result.run_dir])
                     if not written_in(p, changed)]
            now = capture(result.repo, "Agent Canvas: your working tree", [result.run_dir],
                          aside)
            ours_tree = must(result.repo, "rev-parse", f"{now}^{{tree}}")
    ours = _on_base(result, ours_tree, "your state")
    merged, collisions = merge_trees(result.repo, ours, theirs)
    if merged is None:
        return ApplyOutcome(target, False, collisions=collisions, branch=branch,
                            message=_collision(len(collisions), branch, check)
                            + _shapes(result.repo, ours, theirs, collisions, chosen))
    skipped = [] if branch else submodules.moved(result.repo, ours_tree, merged)
    if skipped:
        with tempfile.TemporaryDirectory(prefix="agent-canvas-apply-") as scratch:
            merged = _spliced(result.repo, merged, ours_tree, [m.path for m in skipped],
                              str(Path(scratch) / "index"))
    left_out = _left_out(skipped)
    changes = changed_files(result.repo, ours_tree, merged)
    touched = [f.path for f in changes]
    hidden = [] if branch else _in_the_way(result.repo, changes)
    if hidden:
        one = len(hidden) == 1
        it, done = ("it" if one else "them"), ("nothing would change" if check
                                               else "nothing was changed")
        return ApplyOutcome(target, False, collisions=hidden, branch=branch, message=(
            f"{plural(len(hidden), 'file')} of yours that git ignores {'is' if one else 'are'}"
            f" where the result adds {'one' if one else 'files'}; {done}. Move {it} away (or "
            f"`git add -f` {it}, to have {it} merged), then apply again"))
    if not touched:
        return ApplyOutcome(target, False, branch=branch, message=(
            "nothing to change: the result is already there" + left_out))
    if check:
        return ApplyOutcome(target, False, files=touched, branch=branch,
                            message=f"would change {plural(len(touched), 'file')}; applies "
                            "cleanly" + left_out)
    commit = None
    if branch:
        parents = ["-p", head] if head else []
        commit = must(result.repo, "commit-tree", merged, *parents,
                      "-m", _message(result, chosen))
        made = git(result.repo, "update-ref", "-m", f"agent-canvas: run {run8(result.run_id)}",
                   f"refs/heads/{branch}", commit, "")
        if not made.ok:  # made by another meanwhile (another run's apply, the user)
            raise BadBranchName(f"could not create branch {branch}: {made.reason()}; "
                                "choose another name (nothing was changed)")
    record: dict[str, Any] = {
        "at": utc_stamp(), "target": target, "branch": branch, "commit": commit,
        "resultCommit": result.commit, "files": touched}
    if branch:
        record_applied(result.run_dir, record)
    else:
        failed = _onto_working_tree(result, record, now, ours_tree, merged)
        if failed:
            return ApplyOutcome(target, False, collisions=touched, message=(
                f"your working tree changed while applying; nothing was changed ({failed})"))
    where = f"branch {branch}" if branch else "your working tree"
    return ApplyOutcome(target, True, files=touched, branch=branch, commit=commit,
                        message=f"applied {plural(len(touched), 'file')} to {where}"
                        + left_out)


def _onto_working_tree(result: RunResult, record: dict[str, Any], now: str, ours_tree: str,
                       merged: str) -> str | None:
    """Write ``merged`` onto the working tree (whose state is commit ``now``, tree
    ``ours_tree``) and record ``record`` of it, so that wherever this process is killed
    what it wrote can be undone: the state before is kept under a new ref, then the
    application is recorded as under way, then the files are written, then the record
    is marked done. Why not, when the working tree changed meanwhile: then nothing was
    written, and nothing is recorded."""
    undo = _undo_point(result, now, merged)
    # recorded, durably, before the first file is written: a kill -9 while git apply
    # writes (or just after) leaves an application undo takes back, never changes no
    # record explains; killed before this, only an unused ref is left, and no file
    record_applied(result.run_dir, {**record, "undo": undo, UNDER_WAY: True})
    failed = onto_working_tree(result.repo, ours_tree, merged)
    if failed:  # git apply checks every file before it writes any: none was written
        drop_applied(result.run_dir, undo)
        git(result.repo, "update-ref", "-d", undo)
        return failed
    finish_applied(result.run_dir, undo)
    return None


def _left_out(skipped: list[submodules.Moved]) -> str:
    """What an application to the working tree says of the submodules it leaves out."""
    if not skipped:
        return ""
    return (f"; left out: {plural(len(skipped), 'submodule')} the result moves, "
            f"{', '.join(m.describe() for m in skipped)}: a submodule is a repository of "
            "its own, whose checkout is yours to move (a branch made from the result "
            "records it)")
