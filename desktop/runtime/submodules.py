"""A node's worktree and the repository's submodules.

``git worktree add`` checks out a submodule as an empty folder, and so does every way
a node's worktree is made (desktop/runtime/worktrees.py): a submodule is a repository
of its own, which git clones only when asked (``git submodule update --init``), from
its URL. An agent that finds ``vendor/lib`` empty where the user's checkout has its
files could well conclude that it is missing and write one of its own, so the node's
log says so on its first turn, with the command that fills them.

Blocking (git): callers run it on a worker thread.
"""

from __future__ import annotations

from pathlib import Path

from desktop.runtime.git_run import git
from desktop.wording import plural

_GITLINK = "160000"
_SHOWN = 5


def empty_submodules(worktree: Path) -> list[str]:
    """The submodules of the worktree at ``worktree`` whose folders hold no checkout."""
    listed = git(worktree, "ls-files", "--stage", "-z")
    if not listed.ok:
        return []
    empty = []
    for entry in listed.out.decode("utf-8", "surrogateescape").split("\0"):
        mode, _, rest = entry.partition(" ")
        if mode != _GITLINK:
            continue
        path = rest.partition("\t")[2]
        folder = worktree / path
        if not folder.is_dir() or not any(folder.iterdir()):
            empty.append(path)
    return empty


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
