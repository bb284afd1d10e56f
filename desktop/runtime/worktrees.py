"""A node's own git worktree: made from the run's base commit, committed after each turn.

Node ``impl`` of run ``1a2b3c4d-...`` works in ``runs/<runId>/worktrees/impl``, a git
worktree of the repository its configured workspace is in, on branch
``canvas/1a2b3c4d/impl``; a workspace below the repository's top is the same folder
inside the worktree. Every node of the run starts from the run's one base commit
(:mod:`desktop.runtime.git_base`). A worktree that a deleted run left in the pool is
taken before a new one is made (:mod:`desktop.runtime.worktree_pool`).

The blocking functions here run on a worker thread. Making the base and registering a
worktree hold a lock per repository, so the nodes of a run that start together agree on
one base and git's worktree bookkeeping sees one change at a time; writing the
worktree's files holds only its own path's lock, so the worktrees prepared ahead of
their nodes' turns (desktop/runtime/worktree_prefetch.py) hold up no other node.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.graph.isolation_check import repository_top
from desktop.runtime import index_settle, submodules, worktree_pool
from desktop.runtime.agent_ignore import excludes_for
from desktop.runtime.git_base import base_ref, ensure_base, run8
from desktop.runtime.git_run import GitError, GitResult, Stopper, git, must
from desktop.runtime.worktree_list import linked_git_dir, not_a_worktree

WORKTREES = "worktrees"
"""The run folder's folder of node worktrees."""
SCOPE_JOIN = "+"
"""Joins the parts of a subflow's node's key in its branch name: no node id holds it, so
no other node's name is the same."""
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$")
# weak: a lock lives while someone holds or waits for it, so a long-running service
# does not keep one for every worktree path (or repository) it ever made
_locks: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()
_locks_guard = threading.Lock()
_path_locks: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()


def branch_component(key: str | None, node_id: str, run_dir: Path | None = None) -> str:
    """The node's name in its branch and worktree folder: its key when git accepts it as
    one path component (no ``..``, no trailing ``.`` or ``.lock``), a subflow's node's
    scoped key joined by :data:`SCOPE_JOIN` (``review+implementer``), else its id.

    With ``run_dir``, a subflow's node whose worktree folder a run made before is named
    by its id keeps that name."""
    parts = key.split("/") if key else []
    if not parts or not all(_SAFE.match(p) and not p.endswith(".lock") for p in parts):
        return node_id
    if len(parts) > 1 and run_dir is not None and (run_dir / WORKTREES / node_id).exists():
        return node_id
    return SCOPE_JOIN.join(parts)


def branch_name(run_id: str, component: str) -> str:
    """``canvas/<run8>/<node>``."""
    return f"canvas/{run8(run_id)}/{component}"


@dataclass(frozen=True)
class Repo:
    """The repository a workspace is in."""

    top: Path
    common_dir: Path
    prefix: str
    """The workspace's folder below ``top`` (``""`` at the top)."""


@dataclass(frozen=True)
class NodeTree:
    """One node's worktree, branch and working folder."""

    repo: Repo
    path: Path
    branch: str
    base: str
    left_out: tuple[str, ...] = ()
    """Untracked files left out of the run's base (desktop/runtime/git_base.py), and so
    out of the node's commits."""

    @property
    def workdir(self) -> Path:
        """Where the node's agent works: its workspace, inside the worktree."""
        return self.path / self.repo.prefix if self.repo.prefix else self.path

    def git(self, *args: str) -> GitResult:
        """``git args`` in the worktree, kept to it (``here_only``): a worktree whose
        ``.git`` file went away fails, instead of git taking a repository it lies in
        (a data folder inside the user's repository), whose index and branches the
        command would change."""
        return git(self.path, *args, here_only=True)

    def must(self, *args: str) -> str:
        """As :meth:`git`, its stdout as text, or GitError saying why not."""
        return must(self.path, *args, here_only=True)

    def record(self, run_dir: Path) -> dict[str, Any]:
        """The node's ``git`` field (desktop/contract/isolation.py: NodeGit)."""
        return {"repo": str(self.repo.top), "commonDir": str(self.repo.common_dir),
                "branch": self.branch, "base": self.base,
                "worktree": self.path.relative_to(run_dir).as_posix(),
                "workdir": self.workdir.relative_to(run_dir).as_posix()}


def repo_of(workspace: Path) -> Repo | None:
    """The repository ``workspace`` is in, or None when it is in none."""
    found = git(workspace, "rev-parse", "--path-format=absolute", "--show-toplevel",
                "--git-common-dir", "--path-format=relative", "--show-prefix")
    lines = found.out.decode("utf-8", "replace").splitlines() if found.ok else []
    if len(lines) < 2 or not lines[0]:
        return None
    prefix = lines[2].rstrip("/") if len(lines) > 2 else ""
    return Repo(Path(lines[0]), Path(lines[1]), prefix)


def repo_problem(workspace: Path) -> str | None:
    """Why a ``workspace`` that :func:`repo_of` finds in no repository is in one all the
    same (a ``.git`` above it that git cannot read: git missing, a repository another
    user owns); None when it is in none. Worked on as a plain folder, it would have the
    agent write into the user's own checkout."""
    top = repository_top(workspace)
    if top is None:
        return None
    found = git(workspace, "rev-parse", "--show-toplevel")
    if found.ok:  # it failed a moment ago: a repository being moved, a git replaced
        why, fix = "it failed a moment ago, and answers now", "Resume the run"
    elif found.code == 127 and b"No such file" in found.err:  # no process could start
        why, fix = "git is not on PATH", "Install git 2.34 or newer"
    else:
        why = found.reason()
        fix = (f"If it is yours to work in: git config --global --add safe.directory {top}"
               if "dubious ownership" in why else f"`git -C {top} status` says what git needs")
    return (f"{workspace} is in the git repository {top}, but git could not read it ({why}): "
            "the node's worktree could not be made, and nothing ran in your checkout. "
            f"{fix}; or set isolation: shared for the node to work in the folder itself")


def repo_lock(common_dir: Path) -> threading.Lock:
    """The lock held while the repository's worktrees are made, pooled or removed."""
    return _lock_for(_locks, str(common_dir))


def path_lock(path: Path) -> threading.Lock:
    """The lock held while the worktree at ``path`` is made: a node whose turn comes while
    its worktree is being prepared waits for that preparation instead of making its own.
    Taken before the repository's lock, never while holding it."""
    return _lock_for(_path_locks, str(path))


def _lock_for(locks: weakref.WeakValueDictionary[str, threading.Lock],
              key: str) -> threading.Lock:
    with _locks_guard:
        lock = locks.get(key)
        if lock is None:
            lock = locks[key] = threading.Lock()
        return lock


def head(folder: Path) -> str:
    """The commit checked out in ``folder``."""
    return must(folder, "rev-parse", "--verify", "HEAD^{commit}")


def ahead(folder: Path, base: str) -> int:
    """How many commits the commit checked out in ``folder`` is ahead of ``base`` (the
    commits reachable from it and not from the base: the node's turns and the merges,
    with what they brought in)."""
    return int(must(folder, "rev-list", "--count", f"{base}..HEAD"))


def _is_worktree(path: Path) -> bool:
    """A linked worktree (its ``.git`` a file) that git takes as its own top."""
    return (path / ".git").is_file() and not_a_worktree(path) is None


def _repaired(repo: Repo, path: Path) -> bool:
    """Whether git could make the finished worktree folder at ``path`` one again (its
    ``.git`` file lost, git's record of it still there): its files, the node's work not
    committed yet among them, are kept instead of the folder being made anew."""
    if not path.is_dir():
        return False
    # its exit code is no guide: git 2.39 writes the .git file back, then fails on it
    git(repo.top, "worktree", "repair", str(path))
    return _is_worktree(path)


def adding_mark(path: Path) -> Path:
    """The file that stands beside a worktree while ``git worktree add`` makes it: still
    there, the add never finished (its checkout may be partial) and it is made again."""
    return path.parent / f".{path.name}.adding"


def _discard(repo: Repo, path: Path) -> None:
    """Forget a worktree whose add never finished: its folder, and git's record of it
    (still locked "initializing" when git was killed)."""
    if path.exists():  # nothing of a node's yet: the add was making it
        shutil.rmtree(path)
    git(repo.top, "worktree", "unlock", str(path))
    git(repo.top, "worktree", "prune")


def _register(repo: Repo, path: Path, branch: str, base: str, pool: Path) -> bool:
    """Give ``path`` a worktree of the node's branch: one from the pool when one waits
    there (desktop/runtime/worktree_pool.py, its files written: True), else a new one
    with no file checked out yet (False: :func:`_check_out` writes them)."""
    if adding_mark(path).exists() or path.exists():  # else no add was ever begun here
        _discard(repo, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    adding_mark(path).touch()
    exists = git(repo.top, "rev-parse", "--verify", "-q", f"refs/heads/{branch}").ok
    if worktree_pool.take(repo.common_dir, pool, path, branch, base, exists):
        return True
    where = [str(path), branch] if exists else ["-b", branch, str(path), base]
    added = git(repo.top, "worktree", "add", "--quiet", "--no-checkout", *where)
    if not added.ok:
        raise GitError(_blocked_branch(repo, branch) or f"git worktree add of {branch} in "
                       f"{repo.top} failed: {added.reason()}")
    return False


def _blocked_branch(repo: Repo, branch: str) -> str | None:
    """Why git cannot make ``branch`` when a branch of the user's is named as one of its
    folders (``canvas`` blocks every ``canvas/...``), with the fix; else None."""
    parts = branch.split("/")
    for end in range(1, len(parts)):
        prefix = "/".join(parts[:end])
        if git(repo.top, "rev-parse", "--verify", "-q", f"refs/heads/{prefix}").ok:
            return (f"{repo.top} has a branch named {prefix}, so git cannot make the run's "
                    f"branch {branch} (a branch name cannot also be a folder of others); "
                    f"rename yours (git -C {repo.top} branch -m {prefix} NEW-NAME) and "
                    "run again")
    return None


def _check_out(path: Path, stop: Stopper | None) -> None:
    """Write every file of a new worktree (what ``git worktree add`` would have), outside
    the repository's lock: git writes only this worktree's index and files."""
    must(path, "reset", "--quiet", "--hard", stop=stop, here_only=True)


def _stale_ref_locks(repo: Repo, refs: list[str]) -> None:
    """Remove the lock files a killed git left on the run's own refs (only this run's
    engine writes them, and it is between git commands here)."""
    for ref in refs:
        # not a directory: a branch of the user's holds a folder's name (_blocked_branch)
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            (repo.common_dir / f"{ref}.lock").unlink()


def open_tree(workspace: Path, run_dir: Path, run_id: str, key: str | None,
              node_id: str, stop: Stopper | None = None) -> NodeTree | None:
    """The node's worktree of the repository ``workspace`` is in, made on first use
    (with the run's base commit); None when ``workspace`` is in no repository.

    The repository's lock is held while the worktree is registered, not while its files
    are written, so one node's checkout does not hold up the others'. Until the files
    are all written the worktree's adding mark stays: work killed half way (``stop``,
    or the engine's death) is made again by the next call. With ``stop`` (a preparation
    ahead of the node's turn), a worktree being made by the turn itself is left to it:
    None then too.
    """
    repo = repo_of(workspace)
    if repo is None:
        return None
    component = branch_component(key, node_id, run_dir)
    path = (run_dir / WORKTREES / component).absolute()
    lock = path_lock(path)
    if not lock.acquire(blocking=stop is None):
        return None
    try:
        tree = _made(repo, path, run_dir, run_id, branch_name(run_id, component), stop)
    finally:
        lock.release()
    tree.workdir.mkdir(parents=True, exist_ok=True)
    return tree


def _made(repo: Repo, path: Path, run_dir: Path, run_id: str, branch: str,
          stop: Stopper | None) -> NodeTree:
    """The worktree at ``path`` as :func:`open_tree` says, its path's lock held."""
    with repo_lock(repo.common_dir):
        _stale_ref_locks(repo, [f"refs/heads/{branch}", base_ref(run_id)])
        base, left_out = ensure_base(repo.top, run_id, exclude=[run_dir])
        making = adding_mark(path).exists() or not (_is_worktree(path) or
                                                    _repaired(repo, path))
        written = _register(repo, path, branch, base, worktree_pool.pool_dir(run_dir)) \
            if making else True
    if not written:
        _check_out(path, stop)
        if stop is not None:  # ahead of the turn: its first commit would read every file
            index_settle.settle(path, stop)
    adding_mark(path).unlink(missing_ok=True)
    return NodeTree(repo, path, branch, base, tuple(left_out))


def merging(folder: Path) -> bool:
    """Whether a merge is under way in the worktree at ``folder``: its git folder holds
    ``MERGE_HEAD``. A look at a file, not a git process: every turn's commit asks."""
    gitdir = linked_git_dir(folder)
    if gitdir is not None:
        return (gitdir / "MERGE_HEAD").is_file()
    if (folder / ".git").is_dir():  # a repository's own checkout
        return (folder / ".git" / "MERGE_HEAD").is_file()
    return git(folder, "rev-parse", "--verify", "-q", "MERGE_HEAD").ok


def person_of(folder: Path) -> str | None:
    """``Name <email>`` of the person git knows at ``folder`` (the repository's or their
    own ``user.name`` and ``user.email``), or None when either is unset."""
    name = git(folder, "config", "user.name").text
    email = git(folder, "config", "user.email").text
    return f"{name} <{email}>" if name and email else None


def commit_scope(path: Path, left_out: tuple[str, ...] | list[str]
                 ) -> tuple[list[str], list[str]]:
    """What a node's commit takes in from its worktree at ``path``: git's options (before
    the subcommand) and the pathspecs. ``left_out``: the files left out of the run's base."""
    excludes = excludes_for(path)  # what agents leave behind stays out
    # a submodule left behind by a merge keeps the commit the merge recorded
    kept = [f":(exclude,top,literal){p}" for p in submodules.behind(path)]
    # a big file left out of the base and copied in by the worktree's setup stays out too
    kept += [f":(exclude,top,literal){p}" for p in left_out]
    return ["-c", f"core.excludesFile={excludes}"], [":/", *kept]


def commit_all(tree: NodeTree, message: str) -> str | None:
    """Commit everything changed in the worktree (ignored files left out) on its branch;
    the new commit, or None when nothing changed. A merge under way is concluded by it.

    Build products and caches (desktop/runtime/agent_ignore.py) are left out. A file
    written outside the repository's sparse-checkout patterns (git copies them into
    every worktree) is committed all the same (``add --sparse``): without it git refuses
    the whole ``add``, and the turn's work would be left out of its branch. Plumbing
    rather than ``git commit``, which stats every file a second time after
    ``git add`` did: ``write-tree`` from the index just written, ``commit-tree`` and
    ``update-ref`` of HEAD (so the branch moves, guarded by its old value).
    """
    back_on_branch(tree)
    options, pathspecs = commit_scope(tree.path, tree.left_out)
    tree.must("-c", "core.untrackedCache=true", *options, "add", "-A", "--sparse", "--",
         *pathspecs)
    if merging(tree.path):
        # a person's merge, resolved (desktop/runtime/worktree_repair.py): concluded as a
        # merge commit, so the branch records what it merged, and whose resolution it is
        person = person_of(tree.path)
        author = ["--author", person] if person else []
        tree.must("commit", "--quiet", "--no-verify", "--allow-empty", *author,
             "-m", message)
        return tree.must("rev-parse", "HEAD")
    written = tree.must("write-tree")
    parent, parent_tree = tree.must("rev-parse", "HEAD", "HEAD^{tree}").split()
    if written == parent_tree:
        return None
    commit = tree.must("commit-tree", written, "-p", parent, "-m", message)
    subject = message.splitlines()[0] if message else ""
    tree.must("update-ref", "-m", f"commit: {subject}", "HEAD", commit, parent)
    return commit


def back_on_branch(tree: NodeTree) -> str | None:
    """Put the worktree's HEAD back on the node's own branch when its agent left it (a
    ``git checkout`` of another branch, or of a commit); the branch or commit it was on,
    else None. Files and index stay as the agent left them, so the next commit records
    them on the node's branch: the engine's commits never move a branch of the user's.
    A look at the HEAD file, not a git process: every turn's commit asks."""
    gitdir = linked_git_dir(tree.path)
    if gitdir is None:
        return None
    try:
        head = (gitdir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    own = f"refs/heads/{tree.branch}"
    if head == f"ref: {own}":
        return None
    tree.must("symbolic-ref", "-m", "agent-canvas: back on the node's branch",
         "HEAD", own)
    return head.removeprefix("ref: ").removeprefix("refs/heads/")


def turn_message(run_id: str, node: str, node_id: str, turn: int, agent_run_id: str,
                 attempt: int) -> str:
    """The commit message of a node's turn: what a reader of ``git log`` needs."""
    again = f", attempt {attempt}" if attempt > 1 else ""
    return (f"{node}: turn {turn} of run {run8(run_id)}{again}\n\n"
            f"Run: {run_id}\nNode: {node} ({node_id})\nTurn: {turn}\n"
            f"Agent-Run: {agent_run_id}\n")


def between_message(run_id: str, node: str, turn: int) -> str:
    """The message of a commit of changes made in a worktree between two turns (by a
    verification command, or by hand)."""
    return (f"{node}: changes before turn {turn} of run {run8(run_id)}\n\n"
            f"Run: {run_id}\nNode: {node}\nTurn: {turn}\n")


__all__ = [
    "WORKTREES",
    "GitError",
    "NodeTree",
    "Repo",
    "ahead",
    "between_message",
    "branch_component",
    "branch_name",
    "commit_all",
    "commit_scope",
    "head",
    "merging",
    "open_tree",
    "path_lock",
    "person_of",
    "repo_lock",
    "repo_of",
    "turn_message",
]
