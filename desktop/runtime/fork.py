"""Fork a run from a point between turns, with edits, and continue it as a new run.

A fork is a new run folder whose log starts with the source's events 1..S (the fork
point, see :mod:`desktop.views.forks`), so nothing before S is run again and no tokens
are spent on it. Then, in order:

1. the agent folders those events refer to are copied, and the workspaces are restored
   to their state at S from the recorded diffs (:mod:`desktop.runtime.fork_workspace`);
   nodes that work in git worktrees of their own are not replayed: each gets a branch
   and worktree of the fork at its commit of S (:mod:`desktop.runtime.fork_git`);
2. the folder is published under the new run id, with its engine lock already held,
   and the worktrees are added in it;
3. the fork's own events follow the copied ones: ``run.forked`` (lineage, the point in
   words, the restored workspaces, the branches), the nodes' ``git`` records moved to
   the fork's branches, the edits as ordinary graph-change events
   (``node.patch`` for instructions, model, provider; ``inbox.edited`` for a queued
   handoff), then what resuming writes (``run.resumed``);
4. the returned engine continues it like any resumed run.

Every edit is checked against the state at S before anything is written, so a bad
request leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.contract.base import new_id
from desktop.contract.enums import Provider
from desktop.contract.state import RunState
from desktop.disk.paths import runs_dir
from desktop.runtime import fork_git
from desktop.runtime.fork_git import ForkGitError, GitFork
from desktop.runtime.fork_workspace import (
    Patch,
    Restored,
    WorkspaceRestoreError,
    restore_copy,
    restore_scratch,
)
from desktop.store.fork_copy import ForkCopyError, copy_agent_folders, copy_log_prefix
from desktop.store.runs import engine_alive, hold_engine_lock
from desktop.views.forks import DiffRecord, ForkScan, NoForkPoint, Snap, scan_run
from desktop.views.node_folder import workspace_path
from desktop.views.node_ref import exact_node
from desktop.views.reader import EventReader
from desktop.views.state import RunProjection

if TYPE_CHECKING:
    from desktop.runtime.engine import Engine, EngineOptions

SCRATCH = "workspace"
COPIES = "workspaces"


class ForkError(ValueError):
    """A fork that cannot be made; the message names what and how to fix it.

    ``field``: the request field at fault (dotted, as the API names it); ``conflict``:
    the request is fine but the source cannot give it now (a live run, a changed folder).
    """

    def __init__(self, message: str, field: str | None = None, *,
                 conflict: bool = False) -> None:
        super().__init__(message)
        self.field = field
        self.conflict = conflict


@dataclass
class NodeEdit:
    """New settings for one node in the fork (None: unchanged)."""

    node: str
    instructions: str | None = None
    model: str | None = None
    provider: str | None = None


@dataclass
class ItemEdit:
    """New text for an item queued at the fork point (a pending handoff, say)."""

    item: str
    """The item's id or a unique prefix of it."""
    text: str


@dataclass
class ForkRequest:
    """Where to fork and what to change."""

    at: int
    nodes: list[NodeEdit] = field(default_factory=list)
    items: list[ItemEdit] = field(default_factory=list)
    mode: str | None = None
    global_mode: str | None = None


@dataclass
class ForkPlan:
    """What a fork at a requested seq would copy: read-only, nothing is written."""

    source: Path
    scan: ForkScan
    snap: Snap
    state: RunState
    """The source's state after the events the fork copies."""

    @property
    def seq(self) -> int:
        return self.snap.point.seq


@dataclass
class Fork:
    """A fork made: its engine (open, not running yet) and how it was made."""

    engine: Engine
    plan: ForkPlan
    workspaces: list[Restored]
    edits: list[dict[str, Any]]
    git: GitFork = field(default_factory=GitFork)


def plan_fork(run_dir: Path, at: int) -> ForkPlan:
    """The fork point for seq ``at`` of the run in ``run_dir`` and the state there."""
    run_dir = Path(run_dir)
    if type(at) is not int or at < 1:
        raise ForkError(f"at must be a positive event seq, not {at!r}", "at")
    scan = scan_run(run_dir)
    try:
        snap = scan.snap(at)
    except NoForkPoint as exc:
        raise ForkError(str(exc), "at", conflict=True) from None
    projection = RunProjection()
    projection.extend(itertools.takewhile(lambda e: e["seq"] <= snap.point.seq,
                                          EventReader(run_dir).iter_events()))
    try:
        state = projection.model()
    except ValueError as exc:
        raise ForkError(f"{run_dir}: {exc}") from None
    return ForkPlan(run_dir, scan, snap, state)


def edit_events(plan: ForkPlan, request: ForkRequest) -> list[dict[str, Any]]:
    """The events that make the requested edits, checked against the state at the point."""
    state = plan.state
    events: list[dict[str, Any]] = []
    for index, edit in enumerate(request.nodes):
        node_id = exact_node(state, edit.node)
        if node_id is None:
            keys = ", ".join(sorted(n.key or n.id for n in state.nodes.values()))
            raise ForkError(f"node {edit.node!r}: no node of the run has that key or id"
                            f" at seq {plan.seq} (nodes: {keys})", f"nodes.{index}.node")
        patch: dict[str, Any] = {}
        config: dict[str, Any] = {}
        if edit.provider is not None:
            known = sorted(p.value for p in Provider)
            if edit.provider not in known:
                raise ForkError(f"provider {edit.provider!r} of node {edit.node!r} is not one "
                                f"of {', '.join(known)}", f"nodes.{index}.provider")
            patch["provider"] = edit.provider
        if edit.instructions is not None:
            config["instructions"] = edit.instructions
        if edit.model is not None:
            config["model"] = edit.model or None
        if not patch and not config:
            raise ForkError(f"node {edit.node!r}: give new instructions, a model or a "
                            "provider for it", f"nodes.{index}")
        event: dict[str, Any] = {"type": "node.patch", "nodeId": node_id, "patch": patch}
        if config:
            event["config"] = config
        events.append(event)
    for index, edit in enumerate(request.items):
        node_id, item_id = _queued_item(plan, edit.item, f"items.{index}.itemId")
        events.append({"type": "inbox.edited", "nodeId": node_id, "itemId": item_id,
                       "text": edit.text})
    return events


def _queued_item(plan: ForkPlan, ref: str, field: str) -> tuple[str, str]:
    queued = [(node_id, item.id) for node_id, items in plan.state.inboxes.items()
              for item in items]
    found = [q for q in queued if q[1] == ref] or [q for q in queued
                                                  if ref and q[1].startswith(ref)]
    if len(found) == 1:
        return found[0]
    listing = ", ".join(item_id[:8] for _, item_id in queued) or "none"
    what = "matches more than one" if found else "is not an id (or id prefix) of any"
    raise ForkError(f"item {ref!r} {what} item queued at seq {plan.seq} (queued: {listing})",
                    field)


@dataclass
class Prepared:
    """A fork's folder, published and locked, with the events its engine writes first."""

    plan: ForkPlan
    folder: Path
    lock: contextlib.AbstractContextManager[Any]
    workspaces: list[Restored]
    edits: list[dict[str, Any]]
    prelude: list[dict[str, Any]]
    request: ForkRequest
    git: GitFork = field(default_factory=GitFork)


@dataclass
class ForkCheck:
    """A request checked as a fork checks it before it writes anything: the point, the
    edits' events, and the branches it would make (a dry run shows this)."""

    plan: ForkPlan
    edits: list[dict[str, Any]]
    git: GitFork


def check_fork(run_dir: Path, request: ForkRequest) -> ForkCheck:
    """Everything a fork of ``run_dir`` checks before it writes: the point, each edit, the
    commits its branches start from, and that no live run works in a folder it copies;
    ForkError as :func:`prepare_fork` raises it. Read-only."""
    source = Path(run_dir).resolve()
    plan = plan_fork(source, request.at)
    edits = edit_events(plan, request)
    try:
        git = fork_git.plan_git(plan.state, plan.scan, plan.seq, source)
    except (ForkGitError, fork_git.GitError) as exc:
        raise ForkError(str(exc), conflict=True) from None
    folders = _configured_folders(plan, git)
    if folders and engine_alive(source):
        raise ForkError(f"run {plan.state.id[:8]} is live and works in {next(iter(folders))}; "
                        "fork it once it has stopped", conflict=True)
    return ForkCheck(plan, edits, git)


def prepare_fork(run_dir: Path, data_dir: Path, request: ForkRequest) -> Prepared:
    """Check the request (:func:`check_fork`), then copy, restore and publish the fork's
    folder (file work only, no engine: safe on a worker thread). Nothing is left behind
    on an error."""
    checked = check_fork(run_dir, request)
    plan, edits, git = checked.plan, checked.edits, checked.git
    fork_id = new_id()
    root = runs_dir(Path(data_dir))
    root.mkdir(parents=True, exist_ok=True)
    staging, final = root / f".fork-{fork_id}", root / fork_id
    lock = hold_engine_lock(staging)
    lock.__enter__()
    published = False
    try:
        restored, repoints = _build(plan, staging, final, git)
        os.rename(staging, final)  # the lock stays held: it is on the file, not the name
        published = True
        fork_git.make(git, fork_id, plan.state.id, plan.seq, final)
    except BaseException as exc:
        if published:
            fork_git.undo(git)
        lock.__exit__(None, None, None)
        shutil.rmtree(final if published else staging, ignore_errors=True)
        if isinstance(exc, WorkspaceRestoreError | ForkCopyError | fork_git.GitError):
            raise ForkError(str(exc), conflict=True) from None
        raise
    prelude = [_forked_event(plan, request, restored, git), *fork_git.repoints(git),
               *repoints, *edits]
    return Prepared(plan, final, lock, restored, edits, prelude, request, git)


def open_fork(prepared: Prepared, options: EngineOptions | None = None) -> Fork:
    """The engine of a prepared fork, its own first events written (not running yet)."""
    from desktop.runtime.recovery import resume_engine

    def prelude(engine: Engine) -> None:
        for event in prepared.prelude:
            engine.recorder.emit(event)
        engine.recorder.flush()

    plan, request = prepared.plan, prepared.request
    try:
        engine = resume_engine(prepared.folder, options=options, mode=request.mode,
                               global_mode=request.global_mode, lock=prepared.lock,
                               prelude=prelude,
                               reason=f"forked from run {plan.state.id} at seq {plan.seq}")
    except BaseException:  # a fork without its own first events is no fork: remove it
        fork_git.undo(prepared.git)
        shutil.rmtree(prepared.folder, ignore_errors=True)
        raise
    return Fork(engine, plan, prepared.workspaces, prepared.edits, prepared.git)


def fork_run(run_dir: Path, data_dir: Path, request: ForkRequest,
             options: EngineOptions | None = None) -> Fork:
    """Make the fork and open its engine (call ``engine.run()`` to continue it)."""
    return open_fork(prepare_fork(run_dir, data_dir, request), options)


def _build(plan: ForkPlan, staging: Path, final: Path, git: GitFork
           ) -> tuple[list[Restored], list[dict[str, Any]]]:
    """Fill the staging folder: the log prefix, the agent folders, the workspaces."""
    copy_log_prefix(plan.source, staging, plan.seq, final.name)
    copy_agent_folders(plan.source, staging,
                       [run for seq, run in plan.scan.agent_runs if seq <= plan.seq])
    return _restore(plan, staging, final, git)


def _copy_scratch_repo(source: Path, dest: Path) -> Restored:
    """The source's scratch repository, copied whole but for its record of the source's
    worktrees: the fork's nodes get their worktrees of the copy, so the fork keeps its
    commits when the source run is deleted."""
    shutil.copytree(source / ".git", dest / ".git", symlinks=True,
                    ignore=shutil.ignore_patterns("worktrees", "*.lock"))
    return Restored(dest, source)


def _restore(plan: ForkPlan, staging: Path, final: Path, git: GitFork
             ) -> tuple[list[Restored], list[dict[str, Any]]]:
    """The scratch folder replayed (or, when its nodes worked in worktrees of it, its
    repository copied), and a copy of each configured folder that nodes work in
    directly; nodes in their own git worktrees (``git.isolated``) need neither."""
    source, state = plan.source, plan.state
    workflow_dir = Path(state.workflow_path).parent if state.workflow_path else None
    restored: list[Restored] = []
    scratch = [d for d in plan.scan.diffs if not d.workspace and d.seq <= plan.seq]
    scratch_repo = fork_git.scratch_plan(git, source)
    if scratch_repo is not None:
        restored.append(_copy_scratch_repo(source / SCRATCH, staging / SCRATCH))
        fork_git.move_scratch(scratch_repo, final / SCRATCH)
    elif scratch or (source / SCRATCH).is_dir():
        restored.append(restore_scratch(staging / SCRATCH, source / SCRATCH,
                                        _patches(plan, scratch)))
    # A configured folder: one copy per folder, and its nodes moved to the copy.
    folders = _configured_folders(plan, git)
    if folders and engine_alive(source):  # checked before, but the run may have resumed
        raise ForkError(f"run {state.id[:8]} is live and works in {next(iter(folders))}; "
                        "fork it once it has stopped", conflict=True)
    repoints: list[dict[str, Any]] = []
    for index, (path, nodes) in enumerate(sorted(folders.items()), start=1):
        later = [d for d in plan.scan.diffs if d.workspace and d.seq > plan.seq
                 and d.commit is None
                 and workspace_path(d.workspace, workflow_dir, source).resolve() == path]
        restored.append(restore_copy(staging / COPIES / str(index), path,
                                     _patches(plan, later)))
        moved = str(final / COPIES / str(index))
        repoints += [{"type": "node.patch", "nodeId": node_id, "patch": {},
                      "config": {"workspace": moved}} for node_id in nodes]
        if state.workspace and \
                workspace_path(state.workspace, workflow_dir, source).resolve() == path:
            # a node added to the fork works on the fork's copy, as its nodes do
            repoints.append({"type": "run.patch", "patch": {"workspace": moved}})
    for one in restored:  # from here on they are named as in the published folder
        one.path = one.path.relative_to(staging)
    return restored, repoints


def _configured_folders(plan: ForkPlan, git: GitFork) -> dict[Path, list[str]]:
    """The configured folders the fork's nodes work in directly (each gets a copy), with
    their nodes; nodes in their own git worktrees (``git.isolated``) are not among them."""
    state = plan.state
    workflow_dir = Path(state.workflow_path).parent if state.workflow_path else None
    folders: dict[Path, list[str]] = {}
    for node_id, config in state.node_configs.items():
        if config.workspace and node_id not in git.isolated:
            path = workspace_path(config.workspace, workflow_dir, plan.source).resolve()
            folders.setdefault(path, []).append(node_id)
    return folders


def _patches(plan: ForkPlan, records: list[DiffRecord]) -> list[Patch]:
    base = plan.source.resolve()
    patches = []
    for record in records:
        path = (base / record.path).resolve()
        if not path.is_relative_to(base):
            raise ForkError(f"{plan.source}: the diff artifact {record.path!r} points outside "
                            "the run folder; this log cannot be forked")
        node = plan.scan.labels.get(record.node_id) or record.node_id[:8]
        patches.append(Patch(path, f"agent run {path.parent.name} of {node}"))
    return patches


def _forked_event(plan: ForkPlan, request: ForkRequest, restored: list[Restored],
                  git: GitFork) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "run.forked", "forkedFrom": {"runId": plan.state.id, "seq": plan.seq},
        "requestedSeq": request.at, "point": plan.snap.note,
        "workspaces": [{"path": str(one.path), "source": str(one.source),
                        "diffs": one.diffs, "skipped": one.skipped, "taken": one.taken}
                       for one in restored]}
    branches = branches_json(git)
    if branches:
        event["branches"] = branches
    return event


def branches_json(git: GitFork) -> list[dict[str, Any]]:
    """The fork's branches in wire form (``run.forked`` and the API's answer)."""
    return [{"nodeId": node.node_id, "node": node.name, "branch": node.branch,
             "commit": node.commit or repo.base, "from": node.record["branch"],
             "worktree": node.record["worktree"]}
            for repo in git.repos for node in repo.nodes]
