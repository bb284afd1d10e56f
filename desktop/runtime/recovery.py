"""Starting a run, and picking one up again after a crash, a stop or a pause.

Resuming rebuilds everything from the run's event log: the folded state, the
order of inbox items, the stall counters and the lineage of interrupted turns.
Then it settles what the dead engine left open, in this order:

1. each turn still in ``runningTurns`` gets ``turn.status interrupted``, which
   puts its inbox items back (``restart: true``); a leftover agent process
   group recorded for it is ended first, and so is any process that left the
   group but carries the agent run's ``JRUN_ID`` (the watchdog ends groups only);
2. each pending approval is denied with reason "engine restarted" (the
   restarted turn asks again);
3. ``run.resumed``, and nodes left blocked or failed become idle.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.contract.enums import TURN_CUT_SHORT, RunStatus
from desktop.contract.executor import as_ray
from desktop.disk.keychain import keyring_env
from desktop.disk.paths import runs_dir
from desktop.graph.document import WorkflowDocument
from desktop.graph.subflows import has_subflows, resolve_subflows
from desktop.providers.marked import end_marked
from desktop.providers.redact import Redactor
from desktop.runtime.best_of import take_turn
from desktop.runtime.engine import Engine, EngineError, EngineOptions
from desktop.runtime.recorder import Recorder
from desktop.runtime.run_setup import run_created_event, task_event
from desktop.runtime.subflow_step import is_subflow
from desktop.store.eventlog import EventLog
from desktop.store.runs import hold_engine_lock, log_problem
from desktop.store.safe_open import RunFileError, check_run_folder
from desktop.store.snapshot import read_snapshot
from desktop.views.reader import EventReader

_PROC = Path("/proc")
_INDEXED = frozenset({"inbox.queued", "turn.status", "run.stalled", "node.patch",
                      "node.deleted"})


def create_run(doc: WorkflowDocument, data_dir: Path, mode: str | None = None,
               global_mode: str | None = None, workflow_path: str | None = None,
               options: EngineOptions | None = None) -> Engine:
    """A new run folder for ``doc`` with its ``run.created`` and task written; not started.

    The subflow files ``doc`` uses are read now, relative to ``workflow_path`` (else
    the file ``doc`` was read from); WorkflowLoadError when one is missing or they
    form a cycle.
    """
    from desktop.contract.base import new_id

    options = options or EngineOptions()
    run_id = new_id()
    home = workflow_path or doc.source
    subflows = resolve_subflows(doc, home) if home and has_subflows(doc) else None
    created = run_created_event(doc, run_id, mode=(mode or str(doc.mode)).upper(),
                                global_mode=(global_mode or str(doc.global_mode)).upper(),
                                workflow_path=workflow_path, subflows=subflows)
    task = task_event(doc, run_id)
    run_dir = runs_dir(Path(data_dir)) / run_id
    run_dir.mkdir(parents=True)
    lock = hold_engine_lock(run_dir)
    lock.__enter__()
    try:
        log = EventLog.open(run_dir, durability=options.durability)
        redactor = Redactor.from_env(keyring_env(), data_dir=data_dir)
        recorder = Recorder(log, run_id=run_id, redactor=redactor)
        engine = Engine(run_dir, Path(data_dir), log, recorder, lock, options, take_turn)
        recorder.emit(created)
        recorder.emit(task)
        recorder.flush()
    except BaseException:
        lock.__exit__(None, None, None)
        raise
    return engine


def resume_engine(run_dir: Path, *, options: EngineOptions | None = None,
                  mode: str | None = None, global_mode: str | None = None,
                  lock: contextlib.AbstractContextManager[Any] | None = None,
                  prelude: Callable[[Engine], None] | None = None,
                  reason: str | None = None) -> Engine:
    """Open ``run_dir`` under the engine lock and settle what a previous engine left open.

    ``lock``: the run's engine lock, already held (a fork takes it before its folder is
    published); ``prelude`` emits events before the settling ones; ``reason`` goes into
    ``run.resumed``.
    """
    options = options or EngineOptions()
    run_dir = Path(run_dir).resolve()
    try:
        check_run_folder(run_dir)
    except RunFileError as exc:
        raise EngineError(exc.strerror) from None
    # Before the writer touches the log: a log with no event left (or fewer than the
    # snapshot saw) is not a run to continue, whatever state.json says.
    snapshot = read_snapshot(run_dir)
    problem = log_problem(run_dir, snapshot.last_seq if snapshot else 0)
    if problem:
        raise EngineError(f"{problem}; nothing was changed")
    if lock is None:
        lock = hold_engine_lock(run_dir)
        lock.__enter__()
    try:
        log = EventLog.open(run_dir, durability=options.durability)
        recorder = Recorder(log, redactor=Redactor.from_env(keyring_env(),
                                                              data_dir=run_dir.parent.parent))
        groups: dict[str, int] = {}
        indexed: list[dict[str, Any]] = []

        def note(event: dict[str, Any]) -> None:
            run = event.get("agentRunId")
            pgid = event.get("pgid") or (event.get("pid") if event.get("busType") == "RUN_START"
                                         else None)
            if run and isinstance(pgid, int):
                groups[run] = pgid
            if event.get("type") in _INDEXED:
                indexed.append(event)

        recorder.load(EventReader(run_dir).iter_events(), note)
        if recorder.state_dict is None:
            raise EngineError(f"{run_dir} holds no run (no usable run.created event)")
        log.run_id = recorder.run_id = recorder.state.id
        engine = Engine(run_dir, run_dir.parent.parent, log, recorder, lock, options, take_turn)
    except BaseException:
        lock.__exit__(None, None, None)
        raise
    # The engine's own indexes: inbox order, stall counts, lineage of interrupted turns.
    for event in indexed:
        engine.scheduler.observe(event)
        engine.stall.observe_event(event)
        if event.get("type") == "turn.status" and event.get("status") in TURN_CUT_SHORT \
                and event.get("agentRunId"):
            engine.restart_from[event["nodeId"]] = event["agentRunId"]
    try:
        if prelude is not None:
            prelude(engine)
        settle(engine, groups, mode, global_mode, reason)
    except BaseException:
        engine.close()
        raise
    return engine


def settle(engine: Engine, groups: dict[str, int], mode: str | None,
           global_mode: str | None, reason: str | None = None) -> None:
    """Close what the previous engine left open, then mark the run resumed."""
    state = engine.state
    if state.status == RunStatus.COMPLETED:
        raise EngineError(f"run {state.id} is completed; there is nothing to resume")
    emit = engine.recorder.emit
    for node_id, turn in state.running_turns.items():
        if is_subflow(state, node_id):
            continue  # its step goes on while its inner nodes' turns restart
        agent_run = turn.get("agentRunId")
        config = state.node_configs.get(node_id)
        remote = as_ray(config.executor if config and config.executor is not None
                        else state.executor)
        if remote is not None and agent_run:
            # its pid is the worker's: the engine ends it through the cluster when it runs
            engine.remote_orphans.append((remote, agent_run))
            agent_run, pgid = None, None
        pgid = groups.get(agent_run) if agent_run else None
        if agent_run and pgid is None:
            pgid = _recorded_pgid(engine.run_dir, agent_run)
        if agent_run and pgid:
            end_orphan(pgid, agent_run)
        if agent_run:
            end_marked(agent_run, grace=2.0)
        event = {"type": "turn.status", "status": "interrupted", "turnId": turn.get("turnId"),
                 "attempt": turn.get("attempt", 1), "reason": "engine restarted"}
        if turn.get("agentRunId"):
            event["agentRunId"] = turn["agentRunId"]
        emit(event, node_id)
    for approval_id, pending in state.pending_approvals.items():
        emit({"type": "approval.resolved", "approvalId": approval_id,
              "nodeId": pending.node_id, "resolution": {
                  "status": "denied", "reason": "engine restarted", "by": "engine"}})
    if mode or global_mode:
        event = {"type": "run.mode"}
        if mode:
            event["mode"] = mode.upper()
        if global_mode:
            event["globalMode"] = global_mode.upper()
        emit(event)
    reason = reason or ("resumed after the engine stopped" if state.status in (
        RunStatus.RUNNING, RunStatus.QUEUED) else f"resumed from {state.status}")
    emit({"type": "run.resumed", "reason": reason})
    for node_id, node in state.nodes.items():
        if node.status in ("blocked", "failed", "running"):
            emit({"type": "node.patch", "patch": {"status": "idle"}}, node_id)
    engine.recorder.flush()


def _recorded_pgid(run_dir: Path, agent_run_id: str) -> int | None:
    """The process group run-info.yaml recorded for an agent run, if it is readable."""
    from desktop.store.run_info import RunInfoError, read_run_info

    path = run_dir / "agents" / agent_run_id / "run-info.yaml"
    if not path.is_file():
        return None
    try:
        info = read_run_info(path)
    except (RunInfoError, OSError):
        return None
    return info.pgid if info.running and info.pgid > 1 and info.pgid != os.getpgrp() else None


def _belongs_to(pgid: int, agent_run_id: str) -> bool:
    """Whether group ``pgid`` is still the agent run's (not a reused pid): one of its live
    processes carries the run's ``JRUN_ID``, which the agent and its children inherit.
    The leader may be gone while a shell step's child lives on."""
    from desktop.providers.process import group_members

    if not _PROC.is_dir():
        return True
    needle = f"JRUN_ID={agent_run_id}".encode()
    for pid in group_members(pgid):
        try:
            if needle in (_PROC / str(pid) / "environ").read_bytes().split(b"\0"):
                return True
        except OSError:
            continue
    return False


def end_orphan(pgid: int, agent_run_id: str, grace: float = 2.0) -> bool:
    """End the process group an interrupted turn left behind; True if one was ended."""
    from desktop.providers.process import group_members

    if os.name != "posix" or pgid <= 1 or not group_members(pgid):
        return False
    if not _belongs_to(pgid, agent_run_id):
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    return True
