"""The git worktrees of a best-of-N turn's attempts: made, committed, judged, put away.

Each attempt of node ``impl``'s turn 3 works in ``runs/<runId>/attempts/impl.t3.a2``, a
worktree on branch ``<home branch>.t3.a2`` made from the commit the node's turn starts
from (the home: the node's own worktree, or the run's scratch repository when the node
has no workspace). A dotted name, not ``impl/a2``: git cannot hold both a branch
``…/impl`` and branches below it. When the judge has picked, the home fast-forwards to
the winner's commit; every attempt's worktree is removed and its branch kept, so the
losing attempts' commits stay reachable for replay and fork.

The functions here block; they run on a worker thread.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from desktop.runtime import worktrees
from desktop.runtime.git_run import GitError, git, must
from desktop.runtime.worktrees import NodeTree, Repo

ATTEMPTS = "attempts"
"""The run folder's folder of attempt worktrees."""


@dataclass(frozen=True)
class Home:
    """The git working folder a node's turn starts from, and the commit it starts at."""

    top: Path
    branch: str
    """The name the attempts' branches start with (the node's branch)."""
    start: str
    prefix: str = ""
    """The node's working folder below ``top``."""


@dataclass(frozen=True)
class AttemptTree:
    """One attempt's worktree and branch."""

    index: int
    path: Path
    branch: str
    prefix: str = ""

    @property
    def workdir(self) -> Path:
        """Where the attempt's agent works (the node's folder inside the worktree)."""
        return self.path / self.prefix if self.prefix else self.path


def _tree(top: Path, branch: str, base: str) -> NodeTree:
    common = Path(must(top, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    return NodeTree(Repo(top, common, ""), top, branch, base)


def scratch_home(folder: Path, branch: str, message: str) -> Home:
    """The run's scratch repository as the home of the attempts: what is in it committed
    first (a first, empty commit when it has none), so every attempt sees it."""
    top = Path(must(folder, "rev-parse", "--path-format=absolute", "--show-toplevel"))
    if top.resolve() != folder.resolve():
        raise GitError(f"{folder} is not the top of its own git repository")
    if not git(top, "rev-parse", "--verify", "-q", "HEAD^{commit}").ok:
        must(top, "commit", "--allow-empty", "-q", "-m", message)
    worktrees.commit_all(_tree(top, branch, ""), message)
    return Home(top, branch, worktrees.head(top))


def node_home(tree: NodeTree) -> Home:
    """The node's own worktree as the home of the attempts (already settled and merged)."""
    return Home(tree.path, tree.branch, worktrees.head(tree.path), tree.repo.prefix)


def add(home: Home, run_dir: Path, name: str, index: int) -> AttemptTree:
    """Make attempt ``index``'s worktree at the home's start (``name``: ``<node>.t<turn>``);
    one a dead engine left half made is made again."""
    path = (run_dir / ATTEMPTS / f"{name}.a{index}").absolute()
    branch = f"{home.branch}.{name.rsplit('.', 1)[-1]}.a{index}"
    common = Path(must(home.top, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    with worktrees.repo_lock(common):
        if path.exists():
            git(home.top, "worktree", "remove", "--force", str(path))
            if path.exists():
                shutil.rmtree(path)
        git(home.top, "worktree", "prune")
        path.parent.mkdir(parents=True, exist_ok=True)
        must(home.top, "worktree", "add", "--quiet", "-B", branch, str(path), home.start)
    attempt = AttemptTree(index, path, branch, home.prefix)
    attempt.workdir.mkdir(parents=True, exist_ok=True)
    return attempt


def commit(attempt: AttemptTree, message: str) -> str:
    """Commit what the attempt's agent changed on its branch; the branch's commit."""
    worktrees.commit_all(_tree(attempt.path, attempt.branch, ""), message)
    return worktrees.head(attempt.path)


def diffstat(attempt: AttemptTree, start: str) -> str:
    """``git diff --stat`` of the attempt against the turn's start."""
    return git(attempt.path, "diff", "--stat", start, "HEAD").text


def adopt(home: Home, winner: str) -> str:
    """Move the home to the winner's commit (a fast-forward: every attempt starts at the
    home's commit); the home's new commit."""
    must(home.top, "merge", "--ff-only", "-q", winner)
    return worktrees.head(home.top)


def put_away(home: Home, attempts: list[AttemptTree]) -> None:
    """Remove the attempts' worktrees; their branches stay."""
    common = Path(must(home.top, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    with worktrees.repo_lock(common):
        for attempt in attempts:
            git(home.top, "worktree", "remove", "--force", str(attempt.path))
        git(home.top, "worktree", "prune")


__all__ = ["ATTEMPTS", "AttemptTree", "Home", "add", "adopt", "commit", "diffstat",
           "node_home", "put_away", "scratch_home"]
