"""Deleting a run's git traces: its node worktrees, their branches and its base ref.

The repositories are the ones its nodes' ``git`` records name, and the ones the
worktrees left in its folder belong to. In each, every worktree inside the run folder is
cleaned and given to the pool for the next run's nodes (desktop/runtime/worktree_pool.py),
or removed with ``git worktree remove --force`` when the pool is full; then ``git
worktree prune``, and the refs under
``refs/heads/canvas/<run8>/`` and ``refs/canvas/<run8>/`` are deleted. Nothing else
of the repository is touched: a branch checked out in a worktree outside the run
folder (the user's own checkout of it, say) is kept and reported, and so are the
refs of a repository whose base ref belongs to another run with the same first 8
characters.

Blocking: run it on a worker thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.runtime import worktree_pool
from desktop.runtime.git_base import base_ref, run8
from desktop.runtime.git_run import git
from desktop.runtime.worktrees import WORKTREES, repo_lock


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


def _under(path: Path, folder: Path) -> bool:
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
            common = git(tree, "rev-parse", "--path-format=absolute", "--git-common-dir")
            if common.ok:
                found.append(Path(common.text))
    return list(dict.fromkeys(p for p in found if p.is_dir()))


def _worktrees(common: Path) -> list[tuple[Path, str | None]]:
    """(path, checked-out branch ref) of every worktree of the repository."""
    listed = git(common, "worktree", "list", "--porcelain")
    out: list[tuple[Path, str | None]] = []
    path: Path | None = None
    branch: str | None = None
    for line in [*listed.out.decode("utf-8", "replace").splitlines(), ""]:
        if line.startswith("worktree "):
            path, branch = Path(line[len("worktree "):]), None
        elif line.startswith("branch "):
            branch = line[len("branch "):]
        elif not line and path is not None:  # a blank line ends each worktree's record
            out.append((path, branch))
            path = None
    return out


def _owned(common: Path, run_id: str) -> bool:
    """Whether the run's refs in this repository are its own (not another run's with the
    same first 8 characters): its base ref names it, or there is no base ref."""
    found = git(common, "log", "-1", "--format=%B", f"{base_ref(run_id)}^{{commit}}", "--")
    return not found.ok or f"Run: {run_id}" in found.text


def clean_repository(common: Path, run_dir: Path, run_id: str, done: Cleanup) -> None:
    """Remove the run's worktrees and refs from one repository (see the module)."""
    in_use: set[str] = set()
    pool = worktree_pool.pool_dir(run_dir)
    with repo_lock(common):
        for path, branch in _worktrees(common):
            if not _under(path, run_dir):
                if branch is not None:
                    in_use.add(branch)
            elif worktree_pool.give(common, pool, path):
                done.removed.append(path)
                done.pooled.append(path)
            elif git(common, "worktree", "remove", "--force", "--force", str(path)).ok:
                done.removed.append(path)
        git(common, "worktree", "prune")
    if not _owned(common, run_id):
        done.kept.append(f"{common}: refs/canvas/{run8(run_id)}/ belongs to another run")
        return
    listed = git(common, "for-each-ref", "--format=%(refname)",
                 f"refs/heads/canvas/{run8(run_id)}/", f"refs/canvas/{run8(run_id)}/")
    for ref in listed.text.splitlines() if listed.ok else []:
        if ref in in_use:
            done.kept.append(f"{common}: {ref} is checked out outside the run")
        elif git(common, "update-ref", "-d", ref).ok:
            done.deleted.append(ref)


def remove_run_worktrees(run_dir: Path, run_id: str,
                         state: Mapping[str, Any] | None = None) -> Cleanup:
    """Remove every worktree, branch and base ref run ``run_id`` (folder ``run_dir``,
    folded ``state``) made in the user's repositories."""
    done = Cleanup()
    for common in repositories(run_dir, state):
        clean_repository(common, run_dir, run_id, done)
    return done
