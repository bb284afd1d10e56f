"""What runs deleted by hand left in a repository, and taking it away.

``agent-canvas runs delete`` removes a run's worktrees, its ``canvas/RUN8/*`` branches
and its ``refs/canvas/RUN8/`` refs with its folder. A run folder removed another way
(``rm -rf``, a data folder wiped or moved) leaves them in the user's repository for good:
``git branch`` keeps listing ``canvas/1a2b3c4d/lead``.

A leftover is a run whose refs are in the repository, which the data folder has no
folder of, and whose worktrees are gone. A run's refs are known by their commits: the
base ref's message, else a branch tip's, names the run (``Run: <id>``); a ``canvas/``
branch of the user's own names none and is never taken. A worktree of the run still on
disk keeps the run's refs: it belongs to a run of another data folder, or the user keeps
it. So do a worktree of the run the user locked (git keeps it too, folder or not), a
branch of the run checked out in a worktree of the user's own, and a branch whose newest
commit Agent Canvas did not make (one the user committed on it; a fork's branch still
at its source run's commit is not: desktop/runtime/canvas_commits.py). Every reason a
run's refs stay is said, each kept branch with its own.

Taking leftovers away deletes their refs and lets git forget the worktrees whose
folders are gone (``git worktree prune``); the user's working tree, index, HEAD and own
branches are not touched.

Blocking (git): callers run it on a worker thread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from desktop.disk.paths import runs_dir
from desktop.runtime.canvas_commits import at_fork_start, canvas_made, recorded_runs, tip
from desktop.runtime.git_run import git
from desktop.runtime.worktree_list import Worktree, worktrees
from desktop.runtime.worktrees import repo_lock

_RUN8 = re.compile(r"^[0-9a-f]{8}$")
_RUN_LINE = re.compile(r"^Run: ([0-9a-f]{8}-[0-9a-f-]{27})$", re.MULTILINE)
_HEADS = "refs/heads/canvas/"
_OURS = "refs/canvas/"


class NotARepository(Exception):
    """The folder is no git repository; the message names it."""


@dataclass
class Leftover:
    """The refs one run left in a repository."""

    run_id: str
    refs: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    """Why they stay, each (a worktree of the run is still on disk, a branch with the
    user's commit, ...); none: they go."""

    @property
    def kept(self) -> str | None:
        """Every reason they stay, in one line; None: they go."""
        return "; ".join(self.reasons) if self.reasons else None

    def branches(self) -> list[str]:
        """Its branch names (``canvas/1a2b3c4d/lead``)."""
        return [ref.removeprefix("refs/heads/") for ref in self.refs if ref.startswith(_HEADS)]

    def to_json(self) -> dict[str, object]:
        return {"runId": self.run_id, "refs": list(self.refs), "kept": self.kept,
                "keptBecause": list(self.reasons)}


def _common_dir(repo: Path) -> Path:
    if not repo.is_dir():
        what = "is not a folder" if repo.exists() else "does not exist"
        raise NotARepository(f"{repo} {what}; name the repository your runs worked on")
    found = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
    if not found.ok:
        raise NotARepository(f"{repo} is not in a git repository ({found.reason()}); "
                             "name the repository your runs worked on")
    return Path(found.text)


def _run8(ref: str) -> str | None:
    rest = ref.removeprefix(_HEADS) if ref.startswith(_HEADS) else ref.removeprefix(_OURS)
    run8 = rest.split("/", 1)[0]
    return run8 if _RUN8.match(run8) else None


def _run_id(common: Path, run8: str, refs: list[str]) -> str | None:
    """The run the refs belong to, from the message of their base commit (else of a
    branch's tip): None when no commit of theirs names a run of that prefix."""
    base = f"{_OURS}{run8}/base"
    for ref in sorted(refs, key=lambda r: r != base):
        message = git(common, "log", "-1", "--format=%B", f"{ref}^{{commit}}", "--")
        found = _RUN_LINE.search(message.text) if message.ok else None
        if found and found.group(1).startswith(run8):
            return found.group(1)
    return None


def _why_kept(run: Leftover, trees: list[Worktree]) -> list[str]:
    """Why the run's worktrees keep its refs, one reason per worktree."""
    reasons = []
    for tree in trees:
        if tree.branch not in run.refs:
            continue
        if tree.lock is not None:  # perhaps on a drive not plugged in: git keeps it too
            reasons.append(f"its worktree {tree.path} is locked (`git worktree unlock "
                           f"{tree.path}` lets it go)")
        elif not tree.path.exists():
            continue
        elif tree.path.parent.name == "worktrees" and \
                tree.path.parent.parent.name.startswith(run.run_id[:8]):
            reasons.append(f"its worktree {tree.path} is still there (a run of another "
                           "data folder: delete it from there with `agent-canvas runs "
                           "delete --data-dir ...`)")
        else:
            reasons.append(f"{tree.branch.removeprefix('refs/heads/')} is checked out in "
                           f"{tree.path}")
    return reasons


def _not_the_runs(common: Path, run: Leftover, recorded: frozenset[str]) -> list[str]:
    """Why the run's refs stay: each branch of its whose newest commit Agent Canvas did
    not make (the user's, most likely: deleting the branch would lose that commit)."""
    reasons = []
    for ref in run.refs:
        if not ref.startswith(_HEADS):
            continue
        found = tip(common, ref)
        if found is None or canvas_made(found, run.run_id, recorded) or \
                at_fork_start(common, ref, found.commit):
            continue
        branch = ref.removeprefix("refs/heads/")
        reasons.append(f"{branch}'s newest commit, {found.short} ({found.subject}), is not "
                       f"the run's; keep it with `git branch NAME {found.short}`, or delete "
                       f"the branch with `git branch -D {branch}`")
    return reasons


def find_leftovers(repo: Path, data: Path) -> list[Leftover]:
    """The runs whose refs are in the repository at ``repo`` and which the data folder
    ``data`` has no folder of, each with why its refs stay when they do."""
    common = _common_dir(repo)
    listed = git(common, "for-each-ref", "--format=%(refname)", _HEADS, _OURS)
    grouped: dict[str, list[str]] = {}
    for ref in listed.text.splitlines() if listed.ok else []:
        run8 = _run8(ref)
        if run8 is not None:
            grouped.setdefault(run8, []).append(ref)
    trees = worktrees(common)
    recorded = recorded_runs(common)
    found = []
    for run8, refs in sorted(grouped.items()):
        run_id = _run_id(common, run8, refs)
        if run_id is None or (runs_dir(data) / run_id).is_dir():
            continue  # not a run's, or the run is still here
        run = Leftover(run_id, refs)
        run.reasons = _why_kept(run, trees) + _not_the_runs(common, run, recorded)
        found.append(run)
    return found


def remove_leftovers(repo: Path, runs: list[Leftover]) -> list[str]:
    """Delete the refs of ``runs`` that go (not kept) and prune the worktrees whose
    folders are gone; the refs deleted."""
    common = _common_dir(repo)
    deleted: list[str] = []
    with repo_lock(common):
        git(common, "worktree", "prune")  # else git keeps their branches checked out
        for run in runs:
            if run.kept is None:
                deleted += [ref for ref in run.refs if git(common, "update-ref", "-d", ref).ok]
    return deleted
