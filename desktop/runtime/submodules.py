"""A node's worktree and the repository's submodules: which are empty, and which are
checked out behind what the branch records.

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

Blocking (git): callers run it on a worker thread.
"""

from __future__ import annotations

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


def behind(worktree: Path) -> list[str]:
    """The submodules checked out in the worktree at ``worktree`` at a commit behind the
    one its index records: an ancestor of it, or one their clone lacks (then the branch
    moved it, by a merge, as the node could not have checked it out)."""
    stale = []
    for path, commit in recorded(worktree).items():
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
    for path in behind(worktree):
        commit = recorded_now[path][:12]
        if git(worktree, "submodule", "update", "--no-fetch", "-q", "--", path).ok:
            notes.append(f"checked submodule {path} out at {commit}, as the merge recorded")
        else:
            notes.append(f"submodule {path} stays checked out behind the {commit} the "
                         "merge recorded (its clone here lacks it): `git submodule update "
                         f"-- {path}` in the worktree fetches it; the branch keeps {commit}")
    return notes
