"""Work in a run's worktrees that the run did not make, which deleting the run would lose.

A node's worktree is a real folder: the user opens it in their editor, fixes a line, or
commits on the node's branch. While the run goes on, the node's next turn takes such an
edit in (desktop/runtime/isolation.py). Once the run has ended nothing will, and deleting
the run (desktop/runtime/run_delete.py) would throw it away with the worktree and the
branch. So a run with such work is not deleted, as one with a worktree the user locked
is not: the refusal names each worktree, what is there, and how to keep or drop it.

What counts is what happened after the run's last event, so what the run's own agents
and commits did never does (an agent's own ``git commit``, an interrupted turn's files):

- commits on a branch of the run (a node's, or one the user made under the run's
  ``canvas/RUN8/`` prefix) committed after that moment that no ref outside the run keeps
  (a branch of the user's at them keeps them: then they are not lost);
- uncommitted changes a node's commit would take in (ignored files, the agents'
  leftovers the commits leave out and the base's big files aside) written after that
  moment, in a worktree with no merge waiting on a person (the merge's own files).

A live run deleted with ``force`` is looked at before it is stopped (``live``): the user
may have edited an idle node's worktree while the run waited on another node, and
stopping the run writes events after that edit. Then each worktree's moment is its own
node's last event, and the worktree of a node that may be writing (a turn running or
blocked on a person, or none yet: its setup may still write) is not looked at. A commit
the engine made (a merge of a report, committed as Agent Canvas) is never the user's.

A worktree folder whose ``.git`` file is gone is no worktree any more: git run there
would answer for the repository the folder lies inside (the user's own, when the data
folder is in a home folder kept in git), whose files are not the run's to list, nor to
reset. Such a folder holds the run too, said as what it is, with the ``git worktree
repair`` that makes it a worktree again (then it is looked at as any other) or the
removal that lets it go; git is run in a worktree folder only kept to it (``here_only``).

Blocking: run it on a worker thread.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop.runtime import worktrees as wt
from desktop.runtime.git_base import base_ref, left_out_of, run8, run_refs
from desktop.runtime.git_run import IDENTITY, git
from desktop.runtime.worktree_cleanup import repositories
from desktop.runtime.worktree_list import Worktree, not_a_worktree, worktrees
from desktop.store.jsonl import EVENTS_FILE
from desktop.store.runs import RunError
from desktop.wording import plural

_SHOWN = 3


@dataclass(frozen=True)
class UnsavedWork:
    """One worktree of the run (or a branch of it no worktree has) holding work made
    after the run's last event."""

    path: Path
    branch: str | None
    """The worktree's branch (``refs/heads/...``); None when detached."""
    commits: list[str]
    """The commits made on it since, newest first."""
    changes: list[str]
    """The uncommitted files changed since, as paths in the worktree."""
    checked_out: bool = True
    """False for a branch of the run no worktree has (``path``: the repository's top)."""
    gone: str | None = None
    """Why the folder is no worktree any more (its ``.git`` file gone); None: it is one."""
    top: Path | None = None
    """The repository's top, where ``git worktree repair`` is run (with ``gone``)."""

    def describe(self) -> str:
        """What is there, then the git commands that keep it or drop it, a line each."""
        if self.gone is not None:
            return self._describe_gone()
        here = shlex.quote(str(self.path))
        lines = []
        if self.commits:
            name = self.branch.removeprefix("refs/heads/") if self.branch else "its HEAD"
            newest, oldest = self.commits[0][:12], self.commits[-1][:12]
            which = newest if len(self.commits) == 1 else f"the newest {newest}"
            lines += [f"{name}: {plural(len(self.commits), 'commit')} made since ({which})",
                      f"  keep: git -C {here} branch NAME {newest}",
                      f"  drop: git -C {here} reset --hard {oldest}^" if self.checked_out
                      else f"  drop: git -C {here} branch -f {shlex.quote(name)} {oldest}^"]
        if self.changes:
            shown = ", ".join(self.changes[:_SHOWN]) + (
                f" and {len(self.changes) - _SHOWN} more" if len(self.changes) > _SHOWN else "")
            lines += [f"{self.path}: {plural(len(self.changes), 'uncommitted change')} ({shown})",
                      f"  keep: git -C {here} stash push --include-untracked",
                      f"  drop: git -C {here} reset --hard && git -C {here} clean -fd"]
        return "\n".join(lines)

    def _describe_gone(self) -> str:
        """A folder that is no worktree any more: what it is and what can be done; never
        a git command run in it, which would act on a repository it lies inside."""
        here = shlex.quote(str(self.path))
        top = shlex.quote(str(self.top or self.path.parent))
        return "\n".join([
            f"{self.path}: {self.gone}, so git cannot say what in it is yours",
            f"  keep: git -C {top} worktree repair   (puts its .git file back: deleting the "
            "run again then says what it holds)",
            f"  drop: rm -rf {here}   (its files go, as deleting the run would take them)"])


class WorkNotSaved(RunError):
    """The run's worktrees hold work made after it ended (``live``: while its nodes were
    idle), or a folder of them is no worktree any more; the message says what and how to
    keep it or drop it. Nothing of the run was changed."""

    def __init__(self, run_id: str, unsaved: list[UnsavedWork], *, live: bool = False) -> None:
        self.unsaved = unsaved
        said = "\n".join(u.describe() for u in unsaved)
        super().__init__(f"run {run8(run_id)} not deleted, nothing was changed: "
                         f"{_why_held(unsaved, live)}\n"
                         f"{said}\nKeep it or drop it, then delete the run again.")


def _why_held(unsaved: list[UnsavedWork], live: bool) -> str:
    """The refusal's reason: work made since, unless only folders that are no worktrees
    any more hold the run (nothing is known of what they hold)."""
    if all(u.gone is not None for u in unsaved):
        return ("a folder of its worktrees is no longer a worktree, and deleting the run "
                "would lose whatever is in it.")
    when = "while its nodes waited" if live else "after it ended"
    return f"its worktrees hold work made {when}, which deleting it would lose."


def ended_at(run_dir: Path, state: Mapping[str, Any] | None) -> float | None:
    """When the run's last event was written (seconds since the epoch); None when
    neither its state nor its log says."""
    stamp = (state or {}).get("updatedAt")
    at = _seconds(stamp) if isinstance(stamp, str) else None
    if at is not None:
        return at
    try:
        return (run_dir / EVENTS_FILE).stat().st_mtime
    except OSError:
        return None


def _refs(common: Path, run_id: str) -> tuple[list[str], list[str]]:
    """The run's branches, and every other ref of the repository that is not the run's."""
    listed = git(common, "for-each-ref", "--format=%(refname)")
    refs = [ref for ref in listed.text.splitlines() if ref] if listed.ok else []
    branches, own = run_refs(run_id)
    return ([ref for ref in refs if ref.startswith(branches)],
            [ref for ref in refs if not ref.startswith((branches, own))])


def _commits_since(common: Path, branch: str, since: float, others: list[str]) -> list[str]:
    """The commits on ``branch`` committed after ``since`` that no ref of ``others`` has,
    but the engine's own."""
    negated = "".join(f"^{ref}\n" for ref in others).encode()
    listed = git(common, "log", "--format=%H %ce", f"--since=@{int(since) + 1}", branch,
                 "--stdin", "--", stdin=negated)
    if not listed.ok:
        return []
    ours = IDENTITY["GIT_COMMITTER_EMAIL"]
    return [line.split()[0] for line in listed.text.splitlines()
            if line.strip() and line.split()[-1] != ours]


_WRITING = frozenset({"running", "blocked"})


def _nodes_since(run_dir: Path, state: Mapping[str, Any] | None) -> dict[Path, float]:
    """A live run's node worktrees whose nodes write nothing now: path -> their node's
    last event (seconds since the epoch)."""
    found: dict[Path, float] = {}
    for node in ((state or {}).get("nodes") or {}).values():
        where, stamp = (node.get("git") or {}).get("worktree"), node.get("lastActivityAt")
        if not isinstance(where, str) or not isinstance(stamp, str) \
                or node.get("status") in _WRITING:
            continue
        at = _seconds(stamp)
        if at is not None:
            found[(run_dir / where).resolve()] = at
    return found


def _seconds(stamp: str) -> float | None:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _changed_at(top: Path, path: str) -> float:
    """When the file at ``path`` in the worktree ``top`` last changed; for one deleted,
    when its nearest folder still there did (a removal changes its folder)."""
    where = top / path
    while True:
        try:
            return where.lstat().st_mtime
        except OSError:
            if where == top or where.parent == where:
                return 0.0
            where = where.parent


def _changes_since(tree: Path, since: float, left_out: list[str]) -> list[str]:
    """The files a commit of the worktree ``tree`` would take in, changed after ``since``."""
    if wt.merging(tree):
        return []
    options, pathspecs = wt.commit_scope(tree, left_out)
    listed = git(tree, *options, "status", "--porcelain=v1", "-z", "--untracked-files=all",
                 "--no-renames", "--", *pathspecs, here_only=True)
    if not listed.ok:
        return []
    paths = [entry[3:] for entry in listed.out.decode("utf-8", "surrogateescape").split("\0")
             if len(entry) > 3]
    return [p for p in paths if _changed_at(tree, p) > since]


def _top(common: Path) -> Path:
    """The top of the repository whose git folder is ``common`` (itself when bare)."""
    return common.parent if common.name == ".git" else common


def _gone(tree: Worktree, common: Path) -> UnsavedWork | None:
    """The worktree ``tree`` of the repository ``common`` as no worktree any more, when
    its folder is there without its own ``.git``; None when it is a worktree still (or its
    folder is gone too: nothing is left of it to lose)."""
    why = not_a_worktree(tree.path) if tree.path.is_dir() else None
    if why is None:
        return None
    return UnsavedWork(tree.path, tree.branch, [], [], gone=why, top=_top(common))


def unsaved_work(run_dir: Path, run_id: str, state: Mapping[str, Any] | None = None, *,
                 live: bool = False) -> list[UnsavedWork]:
    """The worktrees of run ``run_id`` (folder ``run_dir``, folded ``state``) holding
    work made after its last event (``live``: after their nodes' last events, see the
    module's docstring), in every repository it made worktrees in."""
    since = ended_at(run_dir, state)
    if since is None:
        return []
    idle = _nodes_since(run_dir, state) if live else {}
    found = []
    for common in repositories(run_dir, state):
        base = git(common, "log", "-1", "--format=%B", f"{base_ref(run_id)}^{{commit}}", "--")
        left_out = left_out_of(base.text) if base.ok else []
        branches, others = _refs(common, run_id)
        trees = worktrees(common)
        for tree in trees:
            if tree.lock is not None or not tree.path.resolve().is_relative_to(
                    run_dir.resolve()):
                continue  # a locked one is refused on its own (run_delete.py)
            if wt.adding_mark(tree.path).exists():
                continue  # half checked out by the engine: its missing files are no one's work
            gone = _gone(tree, common)
            if gone is not None:  # never looked at with git: see the module's docstring
                found.append(gone)
                continue
            here = idle.get(tree.path.resolve()) if live else since
            if here is None:
                continue  # a live node that may be writing in it: its files are not told apart
            commits = _commits_since(common, tree.branch, here, others) \
                if tree.branch is not None else []
            changes = _changes_since(tree.path, here, left_out) if tree.path.is_dir() else []
            if commits or changes:
                found.append(UnsavedWork(tree.path, tree.branch, commits, changes))
        # a branch under the run's prefix no worktree has (its worktree removed, or one
        # the user made there): deleting the run deletes it too
        held = {tree.branch for tree in trees if tree.branch is not None}
        for branch in branches:
            if branch in held:
                continue  # in a worktree: above, or one outside the run (then it is kept)
            commits = _commits_since(common, branch, since, others)
            if commits:
                found.append(UnsavedWork(_top(common), branch, commits, [],
                                         checked_out=False))
    return found


def refuse_if_unsaved(run_dir: Path, run_id: str, state: Mapping[str, Any] | None = None,
                      *, live: bool = False) -> None:
    """Raise WorkNotSaved when run ``run_id``'s worktrees hold work made after it ended
    (``live``: see :func:`unsaved_work`)."""
    unsaved = unsaved_work(run_dir, run_id, state, live=live)
    if unsaved:
        raise WorkNotSaved(run_id, unsaved, live=live)


__all__ = ["UnsavedWork", "WorkNotSaved", "ended_at", "refuse_if_unsaved", "unsaved_work"]
