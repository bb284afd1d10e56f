"""A run's base commit in the user's repository: their HEAD plus everything uncommitted.

The user's working tree, index, HEAD and branches are never touched. The commit is
built through a private index (``GIT_INDEX_FILE``) seeded from a copy of theirs, so
git's cached file stats make ``git add -A`` quick and what they staged is kept:

1. copy their index to a temporary file (or start empty: a repository with no commit
   and nothing staged has none);
2. ``git add -A`` into it: changed, deleted and untracked files, ignored ones left out
   (and the run folder, when it lies inside the repository);
3. ``git write-tree``, then ``git commit-tree -p HEAD`` (no parent when HEAD is unborn).

``refs/canvas/<run8>/base`` keeps the commit reachable (``git gc`` would drop a commit
no ref names), and is how a resumed run, or its next node, finds the same base. The
only things the repository gains are objects and refs under ``refs/canvas/`` and
``refs/heads/canvas/``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from desktop.runtime.git_run import GitError, git, must


def run8(run_id: str) -> str:
    """The first 8 characters of a run id: its short name in branches and refs."""
    return run_id[:8]


def base_ref(run_id: str) -> str:
    """The ref that keeps run ``run_id``'s base commit."""
    return f"refs/canvas/{run8(run_id)}/base"


def applied_refs(run_id: str) -> str:
    """The prefix of the refs that keep, for undo, each application of run ``run_id``'s
    result onto the working tree (``<prefix><n>``, n from 1)."""
    return f"refs/canvas/{run8(run_id)}/applied/"


def _message(run_id: str) -> str:
    return (f"Agent Canvas: base of run {run8(run_id)}\n\n"
            "The repository's HEAD plus the uncommitted and untracked changes at the start "
            f"of the run.\n\nRun: {run_id}\n")


def _excluded(top: Path, folders: list[Path]) -> list[str]:
    """Pathspecs leaving out ``folders`` that lie inside the repository."""
    specs = []
    for folder in folders:
        try:
            inside = folder.resolve().relative_to(top.resolve())
        except ValueError:
            continue
        if inside.parts:
            specs.append(f":(exclude,top){inside.as_posix()}")
    return specs


def _tree(top: Path, index: Path, exclude: list[str]) -> str | None:
    if not git(top, "add", "-A", "--sparse", "--", ":/", *exclude, index=str(index)).ok:
        return None
    result = git(top, "write-tree", index=str(index))
    return result.text if result.ok and result.text else None


def capture(top: Path, message: str, exclude: list[Path] | None = None) -> str:
    """A commit of the repository at ``top`` as it stands, uncommitted changes included;
    GitError when git cannot make one."""
    theirs = Path(must(top, "rev-parse", "--path-format=absolute", "--git-path", "index"))
    specs = _excluded(top, exclude or [])
    head = git(top, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    with tempfile.TemporaryDirectory(prefix="agent-canvas-base-") as tmp:
        index = Path(tmp) / "index"
        if theirs.is_file():
            # with its time: git rechecks an entry as new as its index ("racy git"); a
            # newer copy would vouch for a change made in the same clock tick
            shutil.copy2(theirs, index)
        tree = _tree(top, index, specs)
        if tree is None and head.ok:  # an index git cannot read as a copy (split index)
            index.unlink(missing_ok=True)
            must(top, "read-tree", "HEAD", index=str(index))
            tree = _tree(top, index, specs)
    if tree is None:
        raise GitError(f"git could not record the content of {top} (git add -A failed)")
    parents = ["-p", head.text] if head.ok else []
    return must(top, "commit-tree", tree, *parents, "-m", message)


def ensure_base(top: Path, run_id: str, exclude: list[Path] | None = None) -> str:
    """Run ``run_id``'s base commit in the repository at ``top``: the one its ref names,
    else captured now and named. Callers hold the repository's lock (worktrees.py)."""
    ref = base_ref(run_id)
    # one git process for the commit and its message: every node's worktree asks
    found = git(top, "log", "-1", "--format=%H%n%B", f"{ref}^{{commit}}", "--")
    if found.ok and found.text:
        commit, _, body = found.text.partition("\n")
        if f"Run: {run_id}" not in body:
            raise GitError(f"{ref} in {top} belongs to another run whose id also starts "
                           f"with {run8(run_id)}; delete that run (or the ref) and retry")
        return commit
    commit = capture(top, _message(run_id), exclude)
    # the empty old value: create the ref only if no other process made it meanwhile
    made = git(top, "update-ref", "-m", "agent-canvas: run base", ref, commit, "")
    if not made.ok:
        again = git(top, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
        if not again.ok:
            raise GitError(f"git update-ref {ref} in {top} failed: {made.reason()}")
        return again.text
    return commit
