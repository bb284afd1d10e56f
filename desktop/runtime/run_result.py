"""A run's result: its result branch and the change on it against the run's base, per file.

The result branch is the branch of the node that finished last (desktop/views/result.py).
Its change is what the run did to the user's repository: the diff from the run's base
commit (the user's HEAD plus their uncommitted work when the run started) to the
branch's tip. desktop/runtime/result_apply.py takes it, or part of it, into the user's
repository.

Blocking (git): callers run these on a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.contract.enums import RUN_WORKING
from desktop.runtime.git_run import GitError, git, must
from desktop.store.applied import read_applied
from desktop.views.node_folder import folders_worked_in
from desktop.views.reader import EventReader
from desktop.views.result import result_node, undoable
from desktop.views.runs import open_run
from desktop.views.scratch_result import scratch_result

if TYPE_CHECKING:
    from desktop.contract.state import NodeState, RunState

_STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "type changed"}
_MAX_PATCH = 400_000


class ResultError(Exception):
    """The run has no result to show or apply; the message says why and what to do."""


class RunWorking(ResultError):
    """The run is still working in an engine: its result is not whole yet, so it is not
    applied (409 ``run_working`` over the API)."""


def working_refusal(run_id: str, status: str) -> str:
    """Why a result is not applied while an engine works on its run, and what to do."""
    return (f"run {run_id[:8]} is still {status}: its result is whole only once the run "
            "has ended, and applying it now would take part of it; wait for the run to "
            "end, or stop it (or pause it), then apply again")


@dataclass(frozen=True)
class ResultFile:
    """One file the run changed."""

    path: str
    status: str
    """added, modified, deleted or "type changed" (a file became a link, or back)."""


@dataclass(frozen=True)
class RunPlace:
    """A run and the repository its result belongs to (its branch may be gone)."""

    run_id: str
    run_dir: Path
    repo: Path


@dataclass(frozen=True)
class RunResult:
    """Where a run's result is and what it changes."""

    run_id: str
    run_dir: Path
    node_id: str
    node: str
    """The node's key, else its label."""
    repo: Path
    branch: str
    base: str
    commit: str
    files: tuple[ResultFile, ...]
    working: str | None = None
    """The run's status while an engine works on it (queued, running): its branches still
    move, so the result is not applied (:meth:`refuse_if_working`); None once it has
    ended, is paused, or no engine holds it any more (interrupted)."""

    def refuse_if_working(self) -> None:
        """Raise RunWorking while an engine works on the run."""
        if self.working:
            raise RunWorking(working_refusal(self.run_id, self.working))

    def paths(self) -> list[str]:
        """The changed files' paths, in git's order."""
        return [f.path for f in self.files]

    def to_json(self) -> dict[str, Any]:
        """The result as the API and ``runs apply --json`` give it."""
        return {"runId": self.run_id, "nodeId": self.node_id, "node": self.node,
                "repo": str(self.repo), "branch": self.branch, "base": self.base,
                "commit": self.commit,
                "files": [{"path": f.path, "status": f.status} for f in self.files],
                "applied": read_applied(self.run_dir)}


def changed_files(repo: Path, old: str, new: str) -> tuple[ResultFile, ...]:
    """The files that differ between commits ``old`` and ``new`` (no rename detection:
    accepting or rejecting a file must concern that one path)."""
    out = git(repo, "diff", "--no-renames", "--name-status", "-z", old, new)
    if not out.ok:
        raise GitError(f"git diff in {repo} failed: {out.reason()}")
    parts = out.out.decode("utf-8", "surrogateescape").split("\0")
    files = []
    for status, path in zip(parts[0::2], parts[1::2], strict=False):
        if path:
            files.append(ResultFile(path, _STATUS.get(status[:1], status)))
    return tuple(files)


def find_result(run_dir: Path) -> RunResult:
    """The result of the run in ``run_dir``; ResultError when it has none (no node worked
    in a worktree, or the branch is gone). A run an engine still works on has its result
    so far, marked ``working``: shown, never applied."""
    state, node, repo = _located(run_dir)
    tip = git(repo, "rev-parse", "--verify", "-q", f"refs/heads/{node.git.branch}^{{commit}}")
    if not tip.ok:
        undo = (f"; `agent-canvas runs apply {state.id[:8]} --undo` still puts back what "
                "its last apply to your working tree changed"
                if undoable(read_applied(run_dir)) else "")
        raise ResultError(f"branch {node.git.branch} is gone from {repo} (the run was deleted, "
                          f"or the branch removed by hand){undo}")
    return RunResult(state.id, Path(run_dir), node.id, node.key or node.label, repo,
                     node.git.branch, node.git.base, tip.text,
                     changed_files(repo, node.git.base, tip.text), _working(state))


def find_place(run_dir: Path) -> RunPlace:
    """The run in ``run_dir`` and its result's repository, whether or not the result
    branch is still there (undoing an apply needs only the repository); ResultError as
    :func:`find_result` says it, but for the branch."""
    state, _node, repo = _located(run_dir)
    return RunPlace(state.id, Path(run_dir), repo)


def _working(state: RunState) -> str | None:
    """The run's status while an engine works on it (see RunResult.working)."""
    # open_run marks a run that says queued or running while no engine holds its lock
    # interrupted: nothing moves its branches then, as when it is paused
    return str(state.status) if state.status in RUN_WORKING and not state.interrupted \
        else None


def _located(run_dir: Path) -> tuple[RunState, NodeState, Path]:
    """The run's state, its result node (which worked in a worktree) and that node's
    repository, checked to still be one."""
    state = open_run(run_dir)
    node = result_node(state, EventReader(run_dir).iter_events())
    working = _working(state)
    if (node is None or node.git is None) and working:  # its worktrees may be on the way
        raise RunWorking(working_refusal(state.id, working))
    if node is None or node.git is None:
        scratch = scratch_result(state, run_dir, EventReader(run_dir).iter_events())
        if scratch is not None:  # its attempts have branches, but not in a repository of yours
            raise ResultError(f"run {state.id[:8]} has no result branch to apply: no node "
                              f"worked in a git worktree of a repository of yours; "
                              f"{scratch.text()}. Look at it with `git -C {scratch.folder} "
                              "log --all`, and take what you want from there (for a result "
                              "branch, give the node a workspace in a git repository)")
        folders = folders_worked_in(state.to_json_dict(), Path(run_dir))
        where = (f"; its nodes worked directly in {', '.join(map(str, folders))}, where "
                 f"their files are, and each turn's diff.patch in {Path(run_dir) / 'agents'} "
                 "(the app's Diffs tab) says what it changed" if folders else "")
        raise ResultError(f"run {state.id[:8]} has no result branch: none of its nodes worked "
                          f"in a git worktree, so there is nothing to apply{where}. For a "
                          "result to review and apply, give the nodes a workspace in a git "
                          "repository (isolation: worktree)")
    repo = Path(node.git.repo)
    if not repo.is_dir():
        raise ResultError(f"the repository of run {state.id[:8]} is gone: {repo}")
    if not git(repo, "rev-parse", "--git-dir").ok:  # else "its branch is gone" misleads
        raise ResultError(f"the repository of run {state.id[:8]}, {repo}, is no longer a git "
                          "repository (its .git was moved or removed)")
    return state, node, repo


def file_patch(result: RunResult, path: str) -> str:
    """The unified diff of one changed file against the run's base (cut past 400,000
    characters, saying so)."""
    if path not in result.paths():
        raise ResultError(f"run {result.run_id[:8]} did not change {path}")
    text = must(result.repo, "diff", "--no-renames", "--no-color", result.base, result.commit,
                "--", f":(literal){path}")
    if len(text) > _MAX_PATCH:
        return text[:_MAX_PATCH] + f"\n... cut at {_MAX_PATCH:,} characters; see "\
                                   f"git diff {result.base[:12]} {result.branch} -- {path}\n"
    return text + "\n"
