"""What deleting runs took away, in words: the worktrees pooled or removed and the
branches deleted, from the service's answers (``RunDeletedOut``). One wording for
``agent-canvas runs delete`` and Run history's note."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from desktop.wording import plural

HEADS = "refs/heads/"


def branches_deleted(went: Mapping[str, Any]) -> list[str]:
    """The branches a deletion removed (its other refs: the run's base)."""
    return [str(r)[len(HEADS):] for r in went.get("refsDeleted") or ()
            if str(r).startswith(HEADS)]


def worktrees_text(went: Iterable[Mapping[str, Any]]) -> str:
    """``3 worktrees (2 pooled for the next run, 1 removed)``, or ``no worktrees``."""
    pooled = removed = 0
    for each in went:
        pooled += len(each.get("pooled") or ())
        removed += len(each.get("removed") or ())
    if not pooled and not removed:
        return "no worktrees"
    return (f"{plural(pooled + removed, 'worktree')} ({pooled} pooled for the next run, "
            f"{removed} removed)")


__all__ = ["HEADS", "branches_deleted", "worktrees_text"]
