"""Whether the newest commit of a run's branch is Agent Canvas's or the user's.

``runs prune`` (desktop/runtime/run_leftovers.py) deletes the branches of a run whose
folder was removed by hand only when that loses no work of the user's. A branch tip
holds none when:

- its message names the run (``Run: <id>``: a turn, a commit between turns, the base);
- it is a turn of a node of another run recorded for the repository (``Run: <id>`` and
  ``Node: ...``): a fork's branches start at its source run's commits, and a node that
  takes no turn in the fork keeps that commit as its tip;
- it merges one node's branch into another's (``Merge canvas/...``);
- the branch is still at the commit the fork created it at (its reflog's first entry),
  whoever made that commit: nothing was committed on it since.

A run is recorded for the repository when a base ref there (``refs/canvas/RUN8/base``)
names it, as its run (``Run:``) or as the run it was forked from (``Forked-From:``): the
base of a fork whose source was deleted still names that source.

Blocking (git): callers run it on a worker thread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from desktop.runtime.git_run import git

_ID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_RUN_LINE = re.compile(rf"^Run: ({_ID})$", re.MULTILINE)
_RECORDED = re.compile(rf"^(?:Run|Forked-From): ({_ID})$", re.MULTILINE)
_NODE_LINE = re.compile(r"^Node: \S", re.MULTILINE)
_MERGE = "Merge canvas/"
"""How the subject of a merge of one node's branch into another begins (worktree_merge)."""
FORK_MADE = "agent-canvas: fork"
"""The reflog message of a branch a fork created (desktop/runtime/fork_git.py)."""


@dataclass(frozen=True)
class Tip:
    """A branch's newest commit: its short and full names and its message."""

    short: str
    commit: str
    subject: str
    body: str


def recorded_runs(common: Path) -> frozenset[str]:
    """The ids of the runs the repository's base refs name (their own, or the run they
    were forked from)."""
    listed = git(common, "for-each-ref", "--format=%(contents)", "refs/canvas/")
    return frozenset(_RECORDED.findall(listed.text)) if listed.ok else frozenset()


def tip(common: Path, ref: str) -> Tip | None:
    """The newest commit of ``ref``; None when git cannot read it."""
    shown = git(common, "log", "-1", "--format=%h%n%H%n%s%n%b", ref, "--")
    if not shown.ok:
        return None
    parts = shown.text.split("\n", 3)
    short, commit, subject, body = parts + [""] * (4 - len(parts))
    return Tip(short, commit, subject, body)


def canvas_made(found: Tip, run_id: str, recorded: frozenset[str]) -> bool:
    """Whether Agent Canvas made the commit ``found``: run ``run_id``, a node of a run
    ``recorded`` for the repository, or a merge of node branches (see the module)."""
    if found.subject.startswith(_MERGE):
        return True
    named = set(_RUN_LINE.findall(found.body))
    if run_id in named:
        return True
    return bool(named & recorded) and _NODE_LINE.search(found.body) is not None


def at_fork_start(common: Path, ref: str, commit: str) -> bool:
    """Whether branch ``ref`` is still at ``commit``, the commit a fork created it at (its
    reflog's first entry): no commit was made on it since. False without a reflog."""
    shown = git(common, "reflog", "show", "--format=%H %gs", ref, "--")
    lines = shown.text.splitlines() if shown.ok else []
    return bool(lines) and lines[-1] == f"{commit} {FORK_MADE}"
