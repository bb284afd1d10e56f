"""A fork's nodes in git worktrees of their own, each checked out at its commit of the point.

A node of the source run that worked in its own worktree (it has a ``git`` record at
the fork point) gets, in the fork:

- a branch ``canvas/<fork8>/<node>`` at its commit at the fork point: the last commit
  the log records for it at or before the point (its last turn's commit, on that
  turn's diff artifact, or its worktree's commit once its senders' branches were
  merged, ``git.head``), else the base;
- its worktree ``runs/<fork>/worktrees/<node>``, that branch checked out.

Nothing is replayed: the fork's files are the commit's, exactly. Each repository gets
the fork's own base, ``refs/canvas/<fork8>/base``: a commit of the source's base tree
whose parent is the source's base, so ``git log BASE..BRANCH`` lists the nodes' work
only, a node that works in a worktree from the fork's first turn on starts from the
same files, and the message names the fork (deleting the fork finds its refs by it).

The source run's branches, worktrees and refs are only read. Blocking: run it on a
worker thread.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.contract.isolation import Isolation
from desktop.contract.state import RunState
from desktop.runtime import worktrees
from desktop.runtime.git_base import base_ref, left_out_lines, left_out_of, run8
from desktop.runtime.git_run import GitError, git, must
from desktop.views.forks import ForkScan
from desktop.views.node_folder import workspace_path

CHECKOUTS = 4
"""Worktrees checked out at once."""


class ForkGitError(ValueError):
    """The source's commits cannot be checked out for the fork; the message says why."""


@dataclass
class NodeBranch:
    """One node's branch in the fork: where it starts and what it replaces."""

    node_id: str
    name: str
    record: dict[str, Any]
    """The node's ``git`` record at the fork point (the source's branch and worktree)."""
    commit: str | None
    """Its commit at the point; None: the base."""
    branch: str = ""
    """The fork's branch, once made."""
    ahead: int | None = None
    """How many commits the branch is ahead of the fork's base, once made."""


@dataclass
class RepoPlan:
    """What the fork makes in one repository."""

    top: Path
    common_dir: Path
    source_base: str
    nodes: list[NodeBranch] = field(default_factory=list)
    base: str = ""
    """The fork's base commit, once made."""


@dataclass
class GitFork:
    """The branches and worktrees a fork makes, by repository."""

    repos: list[RepoPlan] = field(default_factory=list)
    isolated: set[str] = field(default_factory=set)
    """Nodes that work in worktrees in the fork: their folders are not copied."""
    made: list[tuple[Path, str]] = field(default_factory=list)
    """(repository top, ref) of each ref made, for :func:`undo`."""
    added: list[tuple[Path, Path]] = field(default_factory=list)
    """(repository top, path) of each worktree added."""

    def branches(self) -> list[NodeBranch]:
        return [node for repo in self.repos for node in repo.nodes]


def _isolated_later(state: RunState, node_id: str, source: Path) -> Path | None:
    """The workspace of a node with no worktree yet that will work in one (its workspace
    is in a git repository and neither it nor the run asks for ``shared``)."""
    config = state.node_configs.get(node_id)
    if config is None or not config.workspace:
        return None
    if (config.isolation or state.isolation) == Isolation.SHARED:
        return None
    workflow_dir = Path(state.workflow_path).parent if state.workflow_path else None
    return workspace_path(config.workspace, workflow_dir, source).resolve()


def _source_base(top: Path, run_id: str) -> str | None:
    """The source run's base in the repository, if it made one."""
    found = git(top, "rev-parse", "--verify", "-q", f"{base_ref(run_id)}^{{commit}}")
    if not found.ok:
        return None
    body = git(top, "log", "-1", "--format=%B", found.text)
    return found.text if f"Run: {run_id}" in body.text else None


def plan_git(state: RunState, scan: ForkScan, seq: int, source: Path) -> GitFork:
    """What a fork at ``seq`` makes in the repositories the source's nodes worked in
    (read-only); ForkGitError when a commit it needs is gone."""
    plan = GitFork()
    repos: dict[Path, RepoPlan] = {}
    for node_id, node in state.nodes.items():
        record = node.git
        if record is None:
            continue
        common = Path(record.common_dir)
        repo = repos.get(common)
        if repo is None:
            repo = repos[common] = RepoPlan(Path(record.repo), common, record.base)
        name = node.key or node.label
        repo.nodes.append(NodeBranch(node_id, name, record.to_json_dict(),
                                     scan.commit_at(node_id, seq)))
        plan.isolated.add(node_id)
    for node_id in state.nodes:
        workspace = None if node_id in plan.isolated else _isolated_later(state, node_id,
                                                                          source)
        found = worktrees.repo_of(workspace) if workspace is not None and \
            workspace.is_dir() else None
        if found is None:
            continue
        plan.isolated.add(node_id)
        if found.common_dir not in repos:
            base = _source_base(found.top, state.id)
            if base is not None:  # the fork starts from the source's base, not from now
                repos[found.common_dir] = RepoPlan(found.top, found.common_dir, base)
    plan.repos = list(repos.values())
    for repo in plan.repos:
        _check(repo, state.id)
    return plan


def scratch_plan(plan: GitFork, source: Path) -> RepoPlan | None:
    """The repository plan of the source run's own scratch repository (its nodes asked for
    ``worktree`` with no workspace), if any: the fork takes a copy of that repository."""
    scratch = (source / "workspace").resolve()
    return next((r for r in plan.repos if r.top.resolve() == scratch), None)


def move_scratch(repo: RepoPlan, top: Path) -> None:
    """Point ``repo``'s plan and its nodes' records at the fork's copy of the scratch
    repository at ``top`` (where the fork's branches and worktrees are then made)."""
    repo.top, repo.common_dir = top, top / ".git"
    for node in repo.nodes:
        node.record = {**node.record, "repo": str(top), "commonDir": str(top / ".git")}


def _check(repo: RepoPlan, run_id: str) -> None:
    if not repo.top.is_dir() or not git(repo.top, "rev-parse", "--git-dir").ok:
        # said apart: "its commits were collected" would send them looking for branches
        raise ForkGitError(
            f"{repo.top}, the repository run {run8(run_id)} worked in, is gone or no longer "
            "a git repository, so the fork cannot check out its commits there; put the "
            "repository back, then fork again")
    wanted = [("the base", repo.source_base)] + [
        (f"{node.name}'s commit", node.commit) for node in repo.nodes if node.commit]
    for what, commit in wanted:
        if not git(repo.top, "cat-file", "-e", f"{commit}^{{commit}}").ok:
            raise ForkGitError(
                f"{repo.top}: {what} in run {run8(run_id)}, {commit[:12]}, is no longer in "
                "the repository (its branches were deleted and git collected it), so the fork "
                "cannot check it out; fork from another run or before its first turn")


def _base_message(top: Path, source_base: str, fork_id: str, source_id: str,
                  seq: int) -> str:
    # the files the source's base left out stay out of the fork's commits too (a node's
    # worktreeSetup may copy one in), so its lines go on
    source = must(top, "log", "-1", "--format=%B", source_base, "--")
    return (f"Agent Canvas: base of run {run8(fork_id)}\n\n"
            f"A fork of run {run8(source_id)} at seq {seq}: that run's base.\n\n"
            f"Run: {fork_id}\nForked-From: {source_id}\n"
            f"{left_out_lines(left_out_of(source))}")


def make(plan: GitFork, fork_id: str, source_id: str, seq: int, fork_dir: Path) -> None:
    """Make the fork's base, branches and worktrees (``fork_dir``: the fork's published
    run folder); the worktrees are checked out side by side. On an error, what was made
    stays: :func:`undo` removes it."""
    adds: list[tuple[Path, Path, NodeBranch]] = []
    for repo in plan.repos:
        tree = must(repo.top, "rev-parse", f"{repo.source_base}^{{tree}}")
        repo.base = must(repo.top, "commit-tree", tree, "-p", repo.source_base, "-m",
                         _base_message(repo.top, repo.source_base, fork_id, source_id, seq))
        _new_ref(plan, repo.top, base_ref(fork_id), repo.base, "agent-canvas: fork base")
        for node in repo.nodes:
            component = Path(node.record["worktree"]).name
            node.branch = worktrees.branch_name(fork_id, component)
            _new_ref(plan, repo.top, f"refs/heads/{node.branch}", node.commit or repo.base,
                     "agent-canvas: fork")
            node.ahead = int(must(repo.top, "rev-list", "--count",
                                  f"{repo.base}..{node.commit or repo.base}"))
            path = (fork_dir / node.record["worktree"]).absolute()
            path.parent.mkdir(parents=True, exist_ok=True)
            # git's worktree bookkeeping takes one add at a time; the checkouts, each in
            # its own worktree and index, run side by side. The mark stands until the
            # checkout is done, so a half-made worktree is made again at its first turn.
            worktrees.adding_mark(path).touch()
            plan.added.append((repo.top, path))
            must(repo.top, "worktree", "add", "--quiet", "--no-checkout", str(path),
                 node.branch)
            adds.append((repo.top, path, node))
    if not adds:
        return
    with ThreadPoolExecutor(max_workers=min(len(adds), CHECKOUTS)) as pool:
        done = [pool.submit(must, path, "read-tree", "--reset", "-u", "HEAD")
                for _top, path, _node in adds]
    for future in done:
        future.result()  # the first failure, once every checkout has ended
    for _top, path, node in adds:
        worktrees.adding_mark(path).unlink()
        (fork_dir / node.record["workdir"]).mkdir(parents=True, exist_ok=True)


def repoints(plan: GitFork) -> list[dict[str, Any]]:
    """The ``node.patch`` events that move each node's ``git`` record to its fork branch."""
    events = []
    for repo in plan.repos:
        for node in repo.nodes:
            record = {**node.record, "branch": node.branch, "base": repo.base,
                      "head": node.commit or repo.base, "ahead": node.ahead}
            events.append({"type": "node.patch", "nodeId": node.node_id,
                           "patch": {"git": record}})
    return events


def _new_ref(plan: GitFork, top: Path, ref: str, commit: str, why: str) -> None:
    """Create ``ref`` at ``commit``; GitError if it exists already (the empty old value)."""
    must(top, "update-ref", "-m", why, ref, commit, "")
    plan.made.append((top, ref))


def undo(plan: GitFork) -> None:
    """Remove what :func:`make` made, and only that (a fork that failed half way)."""
    for top, path in reversed(plan.added):
        git(top, "worktree", "remove", "--force", "--force", str(path))
    for top in dict.fromkeys(top for top, _path in plan.added):
        git(top, "worktree", "prune")
    for top, ref in reversed(plan.made):
        git(top, "update-ref", "-d", ref)
    plan.added.clear()
    plan.made.clear()


__all__ = ["ForkGitError", "GitError", "GitFork", "make", "move_scratch", "plan_git",
           "repoints", "scratch_plan", "undo"]
