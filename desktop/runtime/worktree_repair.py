"""A node's worktree put right after the engine died in the middle of git work (kill -9).

Before each of a node's turns its worktree is made consistent, whatever the engine was
doing when it died:

- lock files a killed git leaves (the worktree's ``index.lock`` and ``HEAD.lock``, the
  lock of the node's branch) are removed: between turns nothing but this engine runs
  git in the worktree, so such a lock is stale, and would stop every git command there;
- a merge of the engine's own that did not finish is undone. A file beside the
  worktree, ``.<node>.merging``, holds the commit the worktree was at (clean) while a
  merge runs or waits for a person's decision: the merge is aborted, the worktree reset
  to that commit and the files a half-done checkout wrote are removed. A merge that
  finished (the branch moved on) is kept;
- any other merge left open (``MERGE_HEAD``) is a person's, started by hand while the
  node waited on a conflict: it is kept. With every file resolved (nothing unmerged in
  the index) the next commit concludes it (desktop/runtime/worktrees.py: ``commit_all``);
  with files still conflicted the node goes on waiting (:class:`MergeLeftOpen`), nothing
  undone, rather than throw away what the person has resolved so far;
- a rebase, cherry-pick, revert or ``git am`` of a person's under way there is kept too,
  and the node waits until they finish or undo it (:class:`OperationUnderWay`): a turn's
  commit would land in the middle of it.

What a half-made commit leaves (the index updated, the branch not moved) is committed
by the next turn like any change made between turns. A worktree whose ``git worktree
add`` never finished is made again (:mod:`desktop.runtime.worktrees`).

Every git command here is kept to the worktree's own folder (``here_only``,
desktop/runtime/git_run.py): were its ``.git`` file gone, a ``reset --hard`` or
``clean`` must fail, not reach the repository the folder lies inside.

Blocking: run it on a worker thread.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from desktop.disk.atomic import atomic_write_bytes
from desktop.runtime.git_operation import MERGE, busy_with
from desktop.runtime.git_run import git, must
from desktop.runtime.merge_errors import MergeLeftOpen, OperationUnderWay
from desktop.runtime.worktrees import NodeTree


def merging_mark(worktree: Path) -> Path:
    """The file that names the worktree's commit while a merge of ours is under way."""
    return worktree.parent / f".{worktree.name}.merging"


def begin_merge(tree: NodeTree) -> str:
    """Note the worktree's (clean) commit before a merge starts; returns it."""
    start = must(tree.path, "rev-parse", "--verify", "HEAD^{commit}", here_only=True)
    atomic_write_bytes(merging_mark(tree.path), f"{start}\n".encode())
    return start


def end_merge(tree: NodeTree) -> None:
    """The merge is concluded or undone: forget the note."""
    merging_mark(tree.path).unlink(missing_ok=True)


def conflicts(folder: Path) -> list[str]:
    """The paths the index holds unmerged (from the worktree's top)."""
    listed = git(folder, "diff", "--name-only", "--diff-filter=U", "-z")
    return [name for name in listed.out.decode("utf-8", "replace").split("\0") if name]


def merging_what(tree: NodeTree) -> str:
    """The branch being merged (one of the run's, at the commit merged), else the commit."""
    commit = git(tree.path, "rev-parse", "--verify", "-q", "MERGE_HEAD", here_only=True)
    named = git(tree.path, "for-each-ref", "--points-at", "MERGE_HEAD",
                "--format=%(refname:short)", "refs/heads/", here_only=True)
    names = named.text.splitlines() if named.ok else []
    return names[0] if names else commit.text[:12] or "MERGE_HEAD"


def _keep_open(tree: NodeTree) -> None:
    """A person's merge under way: kept; refused while a file of it is unmerged."""
    left = conflicts(tree.path)
    if left:
        raise MergeLeftOpen(merging_what(tree), tree.branch, left, tree.path)


def _git_dir(tree: NodeTree) -> Path | None:
    found = git(tree.path, "rev-parse", "--path-format=absolute", "--git-dir", here_only=True)
    return Path(found.text) if found.ok else None


def _stale_locks(tree: NodeTree) -> list[Path]:
    gitdir = _git_dir(tree)
    if gitdir is None:
        return []
    candidates = [gitdir / "index.lock", gitdir / "HEAD.lock",
                  tree.repo.common_dir / "refs" / "heads" / f"{tree.branch}.lock"]
    return [path for path in candidates if os.path.lexists(path)]


def _merge_open(tree: NodeTree) -> bool:
    return git(tree.path, "rev-parse", "--verify", "-q", "MERGE_HEAD", here_only=True).ok


def repair(tree: NodeTree) -> list[str]:
    """Make the worktree consistent (see the module); what was done, in words."""
    notes = []
    for lock in _stale_locks(tree):
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()
        notes.append(f"removed {lock.name}, left by a git command that did not finish")
    operation = busy_with(tree.path)
    if operation is not None and operation[0] != MERGE:  # a person's: theirs to finish
        raise OperationUnderWay(*operation, tree.branch, tree.path)
    mark = merging_mark(tree.path)
    start = mark.read_text().strip() if mark.is_file() else ""
    if _merge_open(tree):
        if not start:
            _keep_open(tree)
            return notes
        must(tree.path, "merge", "--abort", here_only=True)
        notes.append(f"undid a merge left unfinished in {tree.branch}")
    if start:
        now = git(tree.path, "rev-parse", "--verify", "-q", "HEAD^{commit}", here_only=True)
        if now.ok and now.text != start:  # the merge finished: the branch has it
            must(tree.path, "reset", "--quiet", "--hard", "HEAD", here_only=True)
        else:  # back to the commit before it, without what a half-done checkout wrote
            must(tree.path, "reset", "--quiet", "--hard", start, here_only=True)
            must(tree.path, "clean", "--quiet", "-d", "--force", here_only=True)
            notes.append(f"undid a merge into {tree.branch} that did not finish")
        end_merge(tree)
    elif mark.exists():
        end_merge(tree)
    return notes


__all__ = ["begin_merge", "conflicts", "end_merge", "merging_mark", "merging_what", "repair"]
