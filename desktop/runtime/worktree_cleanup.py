"""Deleting a run's git traces: its node worktrees, their branches and its base ref.

The repositories are the ones its nodes' ``git`` records name, and the ones the
worktrees left in its folder belong to. In each, every worktree inside the run folder
is cleaned and given to the pool for the next run's nodes
(desktop/runtime/worktree_pool.py), or removed with ``git worktree remove --force``
when the pool is full; then ``git worktree prune``, and the refs under
``refs/heads/canvas/<run8>/`` and ``refs/canvas/<run8>/`` are deleted. Nothing else
of the repository is touched: a branch checked out in a worktree outside the run
folder (the user's own checkout of it, say) is kept and reported, and so are the
refs of a repository whose base ref belongs to another run with the same first 8
characters.

A worktree the user locked (``git worktree lock``) is theirs to keep: a run that has
one is not deleted at all (:func:`locked_worktrees` names them up front,
desktop/runtime/run_delete.py), and should one be locked after that look, the cleanup
still neither cleans, pools nor removes it, nor deletes its branch (``Cleanup.locked``).

A folder of the run that is no worktree any more (its ``.git`` file gone:
desktop/runtime/worktree_list.py, ``not_a_worktree``) is never cleaned nor pooled:
the pool's ``reset --hard`` and ``clean`` run there would act on the repository the
folder lies inside, the user's own when the data folder is in a home folder kept in
git. Deleting the run refuses such a folder before this
(desktop/runtime/unsaved_work.py); one the engine was still making goes with the run's
folder, and git forgets it with ``git worktree prune``.

Blocking: run it on a worker thread.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.runtime import worktree_pool
from desktop.runtime.git_base import applied_refs, base_ref, run8, run_refs
from desktop.runtime.git_run import git
from desktop.runtime.worktree_list import not_a_worktree, worktrees
from desktop.runtime.worktrees import WORKTREES, repo_lock


@dataclass(frozen=True)
class LockedWorktree:
    """A worktree of the run that the user locked with ``git worktree lock``."""

    path: Path
    branch: str | None
    reason: str

    def describe(self) -> str:
        """``kept canvas/1a2b3c4d/lead: locked by you (why); git worktree unlock PATH``."""
        name = self.branch.removeprefix("refs/heads/") if self.branch else "a detached worktree"
        why = f" ({self.reason})" if self.reason else ""
        return f"kept {name}: locked by you{why}; git worktree unlock {shlex.quote(str(self.path))}"


@dataclass
class Cleanup:
    """What deleting a run's git traces did, per repository."""

    removed: list[Path] = field(default_factory=list)
    """Worktrees gone from the run folder (removed, or pooled)."""
    pooled: list[Path] = field(default_factory=list)
    """Of those, the ones cleaned and kept in the pool for the next run."""
    deleted: list[str] = field(default_factory=list)
    """Refs deleted (branches and the base ref)."""
    kept: list[str] = field(default_factory=list)
    """Refs left alone, each with the reason."""
    locked: list[LockedWorktree] = field(default_factory=list)
    """Worktrees of the run left alone, with their branches, because the user locked them."""
    undo_lost: list[LostUndo] = field(default_factory=list)
    """Applications onto the working tree that could still be undone, latest first."""


@dataclass(frozen=True)
class LostUndo:
    """An application of the run's result that can no longer be undone by the app, once
    its ref is deleted: its commit (the tree it left, whose parent is the state before it)
    stays in the repository until git prunes unreachable objects."""

    repo: Path
    """The repository's top folder (its git folder for a bare one)."""
    commit: str

    def by_hand(self) -> str:
        """The commands that put back by hand what the application changed."""
        top = shlex.quote(str(self.repo))
        return (f"git -C {top} diff --binary {self.commit[:12]} {self.commit[:12]}^ | "
                f"git -C {top} apply")

    def to_json(self) -> dict[str, str]:
        return {"repo": str(self.repo), "commit": self.commit, "byHand": self.by_hand()}


def under(path: Path, folder: Path) -> bool:
    """Whether ``path`` lies in ``folder`` (links resolved)."""
    return path.resolve().is_relative_to(folder.resolve())


def repositories(run_dir: Path, state: Mapping[str, Any] | None) -> list[Path]:
    """The git folders (common dirs) of the repositories the run made worktrees in."""
    found: list[Path] = []
    for node in ((state or {}).get("nodes") or {}).values():
        common = (node.get("git") or {}).get("commonDir") if isinstance(node, dict) else None
        if isinstance(common, str):
            found.append(Path(common))
    folder = run_dir / WORKTREES
    for tree in sorted(folder.iterdir()) if folder.is_dir() else []:
        if (tree / ".git").is_file():
            common = git(tree, "rev-parse", "--path-format=absolute", "--git-common-dir",
                         here_only=True)
            if common.ok:
                found.append(Path(common.text))
    return list(dict.fromkeys(p for p in found if p.is_dir()))


def _locked_in(common: Path, run_dir: Path) -> list[LockedWorktree]:
    return [LockedWorktree(t.path, t.branch, t.lock) for t in worktrees(common)
            if t.lock is not None and under(t.path, run_dir)]


def locked_worktrees(run_dir: Path,
                     state: Mapping[str, Any] | None = None) -> list[LockedWorktree]:
    """The worktrees inside the run folder ``run_dir`` (folded ``state``) that the user
    locked with ``git worktree lock``, in every repository the run made worktrees in."""
    return [tree for common in repositories(run_dir, state)
            for tree in _locked_in(common, run_dir)]


def owns_refs(common: Path, run_id: str) -> bool:
    """Whether the run's refs in this repository are its own (not another run's with the
    same first 8 characters): its base ref names it, or there is no base ref."""
    found = git(common, "log", "-1", "--format=%B", f"{base_ref(run_id)}^{{commit}}", "--")
    return not found.ok or f"Run: {run_id}" in found.text


def clean_repository(common: Path, run_dir: Path, run_id: str, done: Cleanup,
                     applied_in: Path | None = None) -> None:
    """Remove the run's worktrees and refs from one repository (see the module);
    ``applied_in``: as :func:`remove_run_worktrees` says."""
    in_use: set[str] = set()
    locked: list[LockedWorktree] = []
    pool = worktree_pool.pool_dir(run_dir)
    with repo_lock(common):
        for tree in worktrees(common):
            path, branch = tree.path, tree.branch
            inside = under(path, run_dir)
            if inside and tree.lock is not None:
                # the user's to keep, with its files and branch: the pool would clean it,
                # and git removes it only when told twice (-f -f)
                locked.append(LockedWorktree(path, branch, tree.lock))
            if not inside or tree.lock is not None:
                if branch is not None:
                    in_use.add(branch)
            elif path.is_dir() and not_a_worktree(path) is not None:
                continue  # git there would clean the repository it lies inside: never
            elif worktree_pool.give(common, pool, path):
                done.removed.append(path)
                done.pooled.append(path)
            elif git(common, "worktree", "remove", "--force", "--force", str(path)).ok:
                done.removed.append(path)
        git(common, "worktree", "prune")
    done.locked += locked
    if not owns_refs(common, run_id):
        done.kept.append(f"{common}: refs/canvas/{run8(run_id)}/ belongs to another run")
        return
    listed = git(common, "for-each-ref", "--format=%(refname)", *run_refs(run_id))
    refs = listed.text.splitlines() if listed.ok else []
    done.undo_lost += _undo_lost(common, run_id, refs, applied_in)
    for ref in refs:
        if ref in in_use:
            mine = any(t.branch == ref for t in locked)
            where = "in a worktree you locked" if mine else "outside the run"
            done.kept.append(f"{common}: {ref} is checked out {where}")
        elif git(common, "update-ref", "-d", ref).ok:
            done.deleted.append(ref)


def _undo_lost(common: Path, run_id: str, refs: list[str],
               applied_in: Path | None) -> list[LostUndo]:
    """The applications still kept for undo among the run's ``refs``, latest first."""
    prefix = applied_refs(run_id)
    kept = sorted((int(ref[len(prefix):]), ref) for ref in refs
                  if ref.startswith(prefix) and ref[len(prefix):].isdigit())
    if not kept:
        return []
    top = common.parent if common.name == ".git" else common
    if applied_in is not None and _common_dir(applied_in) == common.resolve():
        top = applied_in  # a linked worktree of the user's: the main one was never touched
    lost = []
    for _n, ref in reversed(kept):
        commit = git(common, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
        if commit.ok:
            lost.append(LostUndo(top, commit.text))
    return lost


def _common_dir(folder: Path) -> Path | None:
    found = git(folder, "rev-parse", "--path-format=absolute", "--git-common-dir")
    return Path(found.text).resolve() if found.ok else None


def remove_run_worktrees(run_dir: Path, run_id: str,
                         state: Mapping[str, Any] | None = None,
                         applied_in: Path | None = None) -> Cleanup:
    """Remove every worktree, branch and base ref run ``run_id`` (folder ``run_dir``,
    folded ``state``) made in the user's repositories. ``applied_in``: the folder the
    run's result is applied to (the user's worktree, perhaps a linked one), which the
    commands of :class:`LostUndo` name; by default a repository's main worktree."""
    done = Cleanup()
    for common in repositories(run_dir, state):
        clean_repository(common, run_dir, run_id, done, applied_in)
    return done
