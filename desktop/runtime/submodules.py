"""A node's worktree and the repository's submodules: which are empty, which are
checked out behind what the branch records, and which a run's result moves.

``git worktree add`` checks out a submodule as an empty folder, and so does every way
a node's worktree is made (desktop/runtime/worktrees.py): a submodule is a repository
of its own, which git clones only when asked (``git submodule update --init``), from
its URL. An agent that finds ``vendor/lib`` empty where the user's checkout has its
files could well conclude that it is missing and write one of its own, so the node's
log says so on its first turn, with the command that fills them.

A submodule checked out in a node's worktree (by its worktree setup) stays at its
commit when a merge brings another node's newer one: git merges the commit the branch
records, not the submodule's checkout. ``git add -A`` would then record the old
checkout and silently undo the other node's update, so a turn's commit leaves out a
submodule whose checkout is behind what the branch records (:func:`behind`).

A result that moves a submodule (a node checked a newer commit of it out) is applied to
the user's working tree without that move: a submodule's working tree is a repository
of its own, whose checkout ``git apply`` cannot change, so applying it would claim a
change that never happened (:func:`moved`).

Blocking (git): callers run it on a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from desktop.runtime.git_run import git
from desktop.wording import plural

_GITLINK = "160000"
_SHOWN = 5


def recorded(worktree: Path) -> dict[str, str]:
    """The submodules the index of the worktree at ``worktree`` records: path to commit
    ({} at once, without git, when it has no ``.gitmodules``)."""
    if not (worktree / ".gitmodules").is_file():
        return {}
    listed = git(worktree, "ls-files", "--stage", "-z")
    if not listed.ok:
        return {}
    found = {}
    for entry in listed.out.decode("utf-8", "surrogateescape").split("\0"):
        mode, _, rest = entry.partition(" ")
        if mode == _GITLINK:
            commit = rest.partition(" ")[0]
            found[rest.partition("\t")[2]] = commit
    return found


def empty_submodules(worktree: Path) -> list[str]:
    """The submodules of the worktree at ``worktree`` whose folders hold no checkout."""
    return [path for path in recorded(worktree)
            if not (worktree / path).is_dir() or not any((worktree / path).iterdir())]


def behind(worktree: Path, found: dict[str, str] | None = None) -> list[str]:
    """The submodules checked out in the worktree at ``worktree`` at a commit behind the
    one its index records (``found``: :func:`recorded`, when known): an ancestor of it,
    or one their clone lacks (then the branch moved it, by a merge, as the node could
    not have checked it out)."""
    stale = []
    for path, commit in (recorded(worktree) if found is None else found).items():
        folder = worktree / path
        if not (folder / ".git").exists():
            continue  # not checked out: git add leaves it as recorded
        head = git(folder, "rev-parse", "--verify", "-q", "HEAD^{commit}")
        if not head.ok or head.text == commit:
            continue
        if not git(folder, "cat-file", "-e", f"{commit}^{{commit}}").ok or \
                git(folder, "merge-base", "--is-ancestor", head.text, commit).ok:
            stale.append(path)
    return stale


def submodule_note(worktree: Path) -> str | None:
    """What the node's log says of its worktree's empty submodules; None when it has
    none."""
    empty = empty_submodules(worktree)
    if not empty:
        return None
    shown = ", ".join(empty[:_SHOWN]) + (f" and {len(empty) - _SHOWN} more"
                                         if len(empty) > _SHOWN else "")
    return (f"{plural(len(empty), 'submodule')} empty in this node's worktree ({shown}): "
            "a worktree does not check submodules out. To fill them in every node's "
            "worktree, give the workflow (or the node) `worktreeSetup: {run: git submodule "
            "update --init --recursive}`")


def catch_up(worktree: Path) -> list[str]:
    """Check the submodules :func:`behind` out at the commits the worktree's branch
    records, from their clones here (no fetch); what was done or could not be, in
    words for the node's progress."""
    notes = []
    recorded_now = recorded(worktree)
    for path in behind(worktree, recorded_now):
        commit = recorded_now[path][:12]
        done = git(worktree, "submodule", "update", "--no-fetch", "-q", "--", path)
        if done.ok:
            notes.append(f"checked submodule {path} out at {commit}, as the merge recorded")
            continue
        lacks = not git(worktree / path, "cat-file", "-e", f"{commit}^{{commit}}").ok
        why = "its clone here lacks it" if lacks else f"git: {done.reason()}"
        notes.append(f"submodule {path} stays checked out behind the {commit} the merge "
                     f"recorded ({why}): `git submodule update -- {path}` in the worktree "
                     f"takes it there; the branch keeps {commit}")
    return notes


@dataclass(frozen=True)
class Moved:
    """A submodule whose recorded commit differs between two trees."""

    path: str
    old: str | None
    """Its commit in the first tree; None when it was no submodule there."""
    new: str | None
    """Its commit in the second; None when it is no submodule there."""

    def describe(self) -> str:
        """``vendor/lib (to 1a2b3c4d5e6f: git -C vendor/lib checkout 1a2b3c4d5e6f, after
        a git fetch there if it lacks it)``."""
        if self.new is None:
            return f"{self.path} (removed in the result)"
        return (f"{self.path} (to {self.new[:12]}: git -C {self.path} checkout "
                f"{self.new[:12]}, after a git fetch there if it lacks it)")


def moved(repo: Path, old_tree: str, new_tree: str) -> list[Moved]:
    """The submodules whose commit differs between trees ``old_tree`` and ``new_tree``."""
    out = git(repo, "diff-tree", "-r", "-z", "--no-renames", old_tree, new_tree)
    if not out.ok:
        return []
    found = []
    fields = out.out.decode("utf-8", "surrogateescape").split("\0")
    for head, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = head.lstrip(":").split()
        if len(parts) < 4 or _GITLINK not in (parts[0], parts[1]):
            continue
        old = parts[2] if parts[0] == _GITLINK else None
        new = parts[3] if parts[1] == _GITLINK else None
        found.append(Moved(path, old, new))
    return found
