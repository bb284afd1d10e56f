"""The words for a run's result that collides with the user's work, said alike wherever
they are read: the runtime's message (the API's, ``runs apply``'s) and the Result view's
banner and rows.

What a file collides with depends on where the result lands. On the working tree it is
the user's uncommitted changes, which they can commit or stash. A new branch starts at
their HEAD and never reads the working tree: there it is their last commit, which lacks
what was uncommitted when the run began (or has commits made since), and stashing
changes nothing. Qt-free and I/O-free, so every layer can use it.
"""

from __future__ import annotations

from desktop.wording import plural

BRANCH_WHY = ("the run changed them where HEAD differs from the run's start (edits "
              "uncommitted then, or commits made since)")
"""Why files collide with the commit a new branch starts from."""


def collided_with(branch: str | None) -> str:
    """What the files collide with: the user's uncommitted changes (applied to the working
    tree: ``branch`` None or empty), or the commit new branch ``branch`` would start at."""
    if not branch:
        return "your uncommitted changes"
    return f"your last commit, where branch {branch} would start"


def collides(count: int, branch: str | None, *, check: bool = False) -> str:
    """``2 files collide with your uncommitted changes``; ``would collide`` for a check."""
    verb = "would collide" if check else "collides" if count == 1 else "collide"
    return f"{plural(count, 'file')} {verb} with {collided_with(branch)}"


def remedies(branch: str | None) -> list[str]:
    """What the user can do of their own work to take the files all the same."""
    if not branch:
        return ["commit or stash your own change to them, then apply again"]
    return ["commit those edits first", "apply to your working tree"]


def either(options: list[str]) -> str:
    """``a, or b``; ``a, b, or c``."""
    if len(options) < 2:
        return "".join(options)
    return ", ".join(options[:-1]) + ", or " + options[-1]


__all__ = ["BRANCH_WHY", "collided_with", "collides", "either", "remedies"]
