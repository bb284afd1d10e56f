"""The run supervisor: turns, modes, pause/resume/stop, approvals, stalls, one event log.

Every change is an event in the run's log, and the engine's view of the run is
the reducer's fold of those events (:attr:`Engine.state`), so a run resumes
from its folder alone (see :mod:`desktop.runtime.recovery`).

Run-level rules:

- A node takes a turn when its inbox holds something; the turn consumes all of
  it. Independent nodes run concurrently up to ``concurrency``.
- AUTO starts turns on its own; INTERACTIVE starts one per :meth:`step`.
- The run completes when no inbox holds anything, no turn runs and no
  approval is pending; it fails when a turn fails beyond ``limits.retries``
  (the turn's input goes back to its inbox, so resuming the failed run retries it).
- ``limits.maxTurns``: a node that has used its turns and still has input is
  marked failed ("max turns reached") and the run fails; the input stays in
  its inbox, so raising the limit and resuming continues the run.
- A subflow node takes no turn: its input starts the subflow, and its step ends,
  routing the subflow's output, once nothing inside it runs or waits
  (:mod:`desktop.runtime.subflow_step`).
- A stall (or a silent node) pauses the run; :meth:`resume` continues it.
- ``budget`` (a node's or the run's): when usage reaches a limit the run pauses with
  ``run.budget_exceeded`` and the spending turns are cancelled (their input goes back to
  the inbox); :meth:`set_budget` raises the limit and resuming continues the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.contract.enums import RUN_ENDED, RUN_LIVE, TURN_CUT_SHORT, GlobalMode, Mode, RunStatus
from desktop.contract.state import NodeConfig, RunState
from desktop.runtime import budget, worktree_prefetch, worktree_spare
from desktop.runtime.approvals import ApprovalBroker
from desktop.runtime.gate import NodeGate, NodeView
from desktop.runtime.management import Manager
from desktop.runtime.recorder import Recorder
from desktop.runtime.scheduler import DEFAULT_CONCURRENCY, Scheduler, StepError
from desktop.runtime.snapshots import SnapshotWriter
from desktop.runtime.stall import StallDetector, silent_evidence
from desktop.runtime.subflow_step import (
    enter_events,
    entry_commit,
    finish_events,
    finishing,
    is_subflow,
)
from desktop.runtime.turn import TurnRunner
from desktop.store.eventlog import Durability, EventLog
from desktop.views.node_ref import exact_node

log = logging.getLogger(__name__)
_ARTIFACT_KINDS_ROUTED = frozenset({"diff", "report"})
TakeTurn = Callable[["Engine", str], Awaitable[None]]
"""One turn of a node, start to end (desktop/runtime/dispatch.py: run_turn)."""
SNAPSHOT_EVERY = 5000

__all__ = ["Engine", "EngineError", "EngineOptions", "StepError"]


class EngineError(RuntimeError):
    """A request the engine cannot carry out; the message says why."""


@dataclass
class EngineOptions:
    """Engine-wide settings (per-node settings live in NodeConfig)."""

    concurrency: int = DEFAULT_CONCURRENCY
    silence_sec: float | None = None
    durability: Durability = Durability.BATCH
    conductor_url: str | None = None
    project_id: str = "agent_canvas"
    watch_interval: float = 0.1
    runner_factory: Callable[[], Any] | None = None


class Engine:
    """Runs one run folder. Build it with :func:`~desktop.runtime.recovery.create_run` or
    :func:`~desktop.runtime.recovery.resume_engine`, which give it the turn runner
    (desktop/runtime/dispatch.py): the engine imports neither module."""

    def __init__(self, run_dir: Path, data_dir: Path, log_: EventLog, recorder: Recorder,
                 lock: contextlib.AbstractContextManager[Any], options: EngineOptions,
                 run_turn: TakeTurn) -> None:
        self.run_dir = Path(run_dir)
        self._run_turn = run_turn
        self.data_dir = Path(data_dir)
        self.options = options
        self.log = log_
        self.recorder = recorder
        self._lock = lock
        self.scheduler = Scheduler(options.concurrency)
        self.stall = StallDetector(self._threshold)
        self.broker = ApprovalBroker(self.recorder.emit)
        self.manager = Manager(lambda: self.state, self.recorder.emit, self.recorder.flush)
        self._since_snapshot = 0
        self._snapshots = SnapshotWriter(self.run_dir)
        self.tasks: dict[str, asyncio.Task[None]] = {}
        # Nodes whose turn waits for a judge node: they hold no turn slot meanwhile, or a
        # run with one slot would wait for a judge that cannot start.
        self.judged: set[str] = set()
        self.runners: dict[str, Any] = {}
        self.turn_artifacts: dict[str, list[dict[str, str]]] = {}
        # Last bus.message with handoffTo per agent run, until its turn picks it up.
        self.bus_handoffs: dict[str, dict[str, Any]] = {}
        self.restart_from: dict[str, str] = {}
        # Agent runs of turns a dead engine left on a cluster, ended when this one runs.
        self.remote_orphans: list[tuple[Any, str]] = []
        self.cancel_reason = "run stopped"
        self._turn_started: dict[str, float] = {}
        self._silenced: set[str] = set()
        self._gates: dict[str, NodeGate] = {}
        self._wake: asyncio.Event | None = None
        self._failing: asyncio.Future[None] | None = None
        self._halted = False
        self._stopping = False
        self._stop_asked = False  # stop() under way or done: a second one adds nothing
        self._cancelling: set[str] = set()
        self._over_budget: set[str | None] = set()  # node ids (None: the run) stopped
        self._closed = False
        self._prefetch: worktree_prefetch.Prefetch | None = None
        self.recorder.listen(self._on_events)

    # --- construction ---------------------------------------------------------------

    # --- views ----------------------------------------------------------------------

    @property
    def state(self) -> RunState:
        """The fold of every event written so far."""
        return self.recorder.state

    @property
    def run_id(self) -> str:
        return self.state.id

    def default_config(self) -> NodeConfig:
        return NodeConfig()

    def workflow_dir(self) -> Path | None:
        """Folder of the workflow file (relative workspaces are resolved against it)."""
        path = self.state.workflow_path
        return Path(path).parent if path else None

    def find_node(self, ref: str) -> str:
        """The id of the node ``ref`` names exactly: its id or its key."""
        node_id = exact_node(self.state, ref)
        if node_id is None:
            raise EngineError(f"the run has no node {ref!r} (give a node id or key)")
        return node_id

    def busy(self) -> set[str]:
        """Nodes with a turn in progress."""
        return set(self.tasks)

    def new_runner(self) -> Any:
        return (self.options.runner_factory or TurnRunner)()

    def gate_for(self, node_id: str) -> NodeGate:
        gate = self._gates.get(node_id)
        if gate is None:
            gate = NodeGate(node_id, lambda: self._node_view(node_id), self.broker,
                            self.recorder.emitter(node_id), self.manager)
            self._gates[node_id] = gate
        return gate

    def _node_view(self, node_id: str) -> NodeView:
        state = self.state
        return NodeView(state.nodes[node_id], state.node_configs.get(node_id) or NodeConfig(),
                        str(state.global_mode))

    def _threshold(self, node_id: str) -> int:
        # Read from the folded dict: each finished turn asks, and rebuilding the state
        # model for one number costs milliseconds in a large run.
        configs = (self.recorder.state_dict or {}).get("nodeConfigs") or {}
        config = configs.get(node_id)
        value = config.get("stallThreshold") if type(config) is dict else None
        return value if type(value) is int else NodeConfig().stall_threshold

    # --- commands (any time, both modes) ----------------------------------------------

    def step(self, node: str | None = None) -> str:
        """INTERACTIVE: run the next pending turn (FIFO), or ``node``'s. Returns the node id."""
        node_id = self.find_node(node) if node else None
        state = self.state
        if state.status in RUN_ENDED:
            raise EngineError(f"the run is {state.status}")
        chosen = self.scheduler.request_step(state, self.busy(), node_id)
        self._poke()
        return chosen

    def pause(self, reason: str = "paused by the user") -> None:
        """No new turns start; running turns finish."""
        if self.state.status == RunStatus.RUNNING:
            self.recorder.emit({"type": "run.paused", "reason": reason})
            self.recorder.flush()

    def resume_run(self, reason: str = "resumed by the user") -> None:
        """Continue a paused (or stalled) run."""
        state = self.state
        if state.status in RUN_ENDED:
            raise EngineError(f"the run is {state.status}; it cannot be resumed")
        if state.status == RunStatus.RUNNING and not state.stall:
            return
        self.recorder.emit({"type": "run.resumed", "reason": reason})
        for node_id, node in state.nodes.items():
            if node.status == "blocked" and node_id not in self.tasks:
                self.recorder.emit({"type": "node.patch", "patch": {"status": "idle",
                                                                     "summary": ""}}, node_id)
        self._silenced.clear()
        self._over_budget.clear()
        self.recorder.flush()

    async def stop(self, reason: str = "stopped by the user") -> None:
        """Cancel every running turn (killing its processes) and mark the run stopped."""
        if self.state.status in RUN_ENDED or self._stop_asked:
            # a second Ctrl-C (a terminal's, `timeout`'s) while the first still cancels
            # the turns: the run stops once, with the first reason
            return
        self._stop_asked = True
        self.cancel_reason = reason
        self._stopping = True  # no turn may start while the others are being cancelled
        self.scheduler.clear_steps()
        await self._stop_prefetch()
        self.broker.abort_all("the run was stopped")  # releases turns waiting at the gate
        await self.cancel_turns()
        self.recorder.emit({"type": "run.stopped", "reason": reason})
        self.recorder.flush()

    async def cancel_turns(self, keep: str | None = None, only: str | None = None) -> None:
        """Cancel running turns (but ``keep``'s; or only ``only``'s); their inbox items go
        back for a restart."""
        def chosen(n: str) -> bool:
            return n != keep and (only is None or n == only)

        runners = [r for n, r in self.runners.items() if chosen(n)]
        tasks = [t for n, t in self.tasks.items() if chosen(n)]
        # their questions go with them: an answer that comes later is refused, not taken
        self.broker.abort_nodes({n for n in [*self.tasks, *self.runners] if chosen(n)},
                                self.cancel_reason)
        # A turn task made but not yet running has no runner to cancel: it checks this
        # as it registers one (dispatch.run_turn) and takes no turn.
        self._cancelling = {n for n in self.tasks if chosen(n)}
        try:
            await asyncio.gather(*(r.cancel() for r in runners), return_exceptions=True)
            if tasks:
                # the runners return once their processes are gone; a stuck one is cancelled
                _done, stuck = await asyncio.wait(tasks, timeout=10.0)
                for task in stuck:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            self._cancelling = set()

    def turn_cancelled(self, node_id: str) -> bool:
        """Whether ``node_id``'s turn task was cancelled before its runner was registered."""
        return node_id in self._cancelling

    def chat(self, node: str, text: str) -> str:
        """A user message to a node: ``message.user`` and an inbox item for its next turn."""
        from desktop.contract.base import new_id, utc_now

        node_id = self.find_node(node)
        self.recorder.emit({"type": "message.user", "text": text}, node_id)
        self.recorder.emit({"type": "inbox.queued", "item": {
            "id": new_id(), "kind": "user", "text": text, "queuedAt": utc_now()}}, node_id)
        self.recorder.flush()
        return node_id

    def edit_inbox_item(self, node: str, item_id: str, text: str,
                        structured: dict[str, Any] | None = None) -> None:
        """Change a queued item (a pending handoff, say) before the node's turn takes it.

        Raises KeyError when the item is no longer queued (its turn has started).
        """
        node_id = self.find_node(node)
        queued = self.state.inboxes.get(node_id, [])
        if not any(item.id == item_id for item in queued):
            raise KeyError(f"item {item_id} is not queued for {node}; its turn has started")
        event: dict[str, Any] = {"type": "inbox.edited", "itemId": item_id, "text": text}
        if structured is not None:
            event["structured"] = structured
        self.recorder.emit(event, node_id)
        self.recorder.flush()

    def set_mode(self, mode: str | None = None, global_mode: str | None = None) -> None:
        """Switch AUTO/INTERACTIVE and/or PLANNING/IMPLEMENTATION."""
        event: dict[str, Any] = {"type": "run.mode"}
        if mode:
            event["mode"] = Mode(mode.upper()).value
        if global_mode:
            event["globalMode"] = GlobalMode(global_mode.upper()).value
        self.recorder.emit(event)
        self.recorder.flush()

    def set_budget(self, node: str | None, limits: dict[str, float | None]) -> None:
        """Change the run's budget (or ``node``'s): the limits given replace the old ones
        (None removes a limit); resume the run to go on after ``run.budget_exceeded``."""
        if node is None:
            merged = {**(self.state.budget.to_json_dict() if self.state.budget else {}),
                      **limits}
            self.recorder.emit({"type": "run.patch", "patch": {
                "budget": {k: v for k, v in merged.items() if v is not None}}})
        else:
            node_id = self.find_node(node)
            config = self.state.node_configs.get(node_id) or NodeConfig()
            merged = {**(config.budget.to_json_dict() if config.budget else {}), **limits}
            # node.patch merges configs key by key: a removed limit is written as None
            self.recorder.emit({"type": "node.patch", "patch": {},
                                "config": {"budget": merged}}, node_id)
        self.recorder.flush()

    def update_node_config(self, node: str, patch: dict[str, Any]) -> None:
        """Change a node's config (e.g. its instructions before resuming a stall)."""
        node_id = self.find_node(node)
        self.stall.reset(node_id)
        self.recorder.emit({"type": "node.patch", "patch": {}, "config": patch}, node_id)
        self.recorder.flush()

    # --- the loop ----------------------------------------------------------------------

    async def run(self, *, exit_on_pause: bool = False) -> RunStatus:
        """Run until completed, failed or stopped (or paused and idle, if asked)."""
        self._wake = asyncio.Event()
        await self._end_remote_orphans()
        if self.state.status == RunStatus.QUEUED:
            self.recorder.emit({"type": "run.started"})
            self.recorder.flush()
        watcher = asyncio.create_task(self._watch())
        try:
            while True:
                self._wake.clear()
                if self._halted:
                    break
                state = self.state
                if state.status in RUN_ENDED and not self.tasks and (
                        self._failing is None or self._failing.done()):
                    break
                settling = self._failing is not None or self._stopping
                if not settling:
                    self._start_turns(state)
                if not settling and await self._finish_subflow():
                    continue
                if not settling and self._finished():
                    self.recorder.emit({"type": "run.completed"})
                    self.recorder.flush()
                    continue
                if exit_on_pause and self.state.status == RunStatus.PAUSED and not self.tasks:
                    break
                await self._wake.wait()
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            await self._stop_prefetch()
            self.recorder.flush()
            self.write_snapshot()
            self._wake = None  # no loop looks any more: nothing is woken
        return RunStatus(self.state.status)

    def prefetch_worktrees(self, node_id: str) -> None:
        """Node ``node_id`` has its worktree (so the run has its base commit): prepare the
        other nodes' worktrees in the background (desktop/runtime/worktree_prefetch.py),
        and a spare for the repository's next run, once per run of this loop."""
        if self._stopping or self._halted or self._closed or self._wake is None:
            return
        if self._prefetch is None:
            self._prefetch = worktree_prefetch.Prefetch(self.run_dir, self.run_id)
        if not self._prefetch.started:
            every = worktree_prefetch.jobs(self.state, self.run_dir, self.workflow_dir())
            busy = {node_id, *self.tasks}  # their turns make their own
            self._prefetch.start([job for job in every if job.node_id not in busy],
                                 spares=[job.workspace for job in every]
                                 if worktree_spare.wanted() else [])

    async def _stop_prefetch(self) -> None:
        prefetch, self._prefetch = self._prefetch, None
        if prefetch is not None:
            await prefetch.stop()

    async def _end_remote_orphans(self) -> None:
        from desktop.runtime import executor as executors

        orphans, self.remote_orphans = self.remote_orphans, []
        for spec, agent_run_id in orphans:
            try:
                ended = await asyncio.wait_for(executors.end_orphan(spec, agent_run_id), 60)
            except Exception:  # unreachable now: the turn restarts, or the run pauses
                log.warning("could not end agent run %s on its cluster", agent_run_id)
                continue
            if ended:
                log.info("ended agent run %s left on its cluster", agent_run_id)

    def _start_turns(self, state: RunState) -> None:
        for node_id in self.scheduler.pick(state, self.busy(), waiting=self.judged):
            if is_subflow(state, node_id):  # no agent: its input goes to the subflow
                for event in enter_events(self.state, node_id):
                    self.recorder.emit(event)
                self.recorder.flush()
                continue
            limit = (state.node_configs.get(node_id) or NodeConfig()).limits.max_turns
            if limit is not None and state.turns.get(node_id, 0) >= limit:
                self._max_turns(node_id, limit)
                return
            spent = budget.exceeded(self.recorder.state_dict or {}, node_id)
            if spent is not None:  # resumed without raising the limit: pause again
                # once: the watchdog's next look sees this limit as already reached
                self._over_budget.add(spent.get("nodeId"))
                self.recorder.emit(spent)
                self.recorder.flush()
                return
            task = asyncio.create_task(self._run_turn(self, node_id), name=f"turn-{node_id}")
            self.tasks[node_id] = task
            task.add_done_callback(lambda t, n=node_id: self._turn_done(n, t))

    async def _finish_subflow(self) -> bool:
        """End the step of one subflow node whose inside is quiet; True if one ended (its
        output may wake the subflow around it, so the loop looks again)."""
        if self.state.status != RunStatus.RUNNING:
            return False
        ready = finishing(self.state, self.busy())
        if not ready:
            return False
        commit = await asyncio.to_thread(entry_commit, self.state, ready[0])
        state = self.state
        # while git answered, a message may have woken its inside: then it is not over
        if state.status != RunStatus.RUNNING or ready[0] not in finishing(state, self.busy()):
            return True
        for event in finish_events(state, self.run_dir, ready[0], commit):
            self.recorder.emit(event)
        self.recorder.flush()
        return True

    def _turn_done(self, node_id: str, task: asyncio.Task[None]) -> None:
        if self.tasks.get(node_id) is task:
            del self.tasks[node_id]
        self._turn_started.pop(node_id, None)
        self._silenced.discard(node_id)
        self.turn_artifacts.pop(node_id, None)
        if not task.cancelled() and task.exception() is not None:
            log.error("turn task of %s crashed", node_id, exc_info=task.exception())
        self._poke()

    def _finished(self) -> bool:
        state = self.state
        return (state.status == RunStatus.RUNNING and not state.stall and not self.tasks
                and not state.running_turns and not state.pending_approvals
                and not any(state.inboxes.values()))

    def _max_turns(self, node_id: str, limit: int) -> None:
        reason = f"max turns reached ({limit})"
        self.recorder.emit({"type": "node.patch", "patch": {"status": "failed",
                                                             "summary": reason}}, node_id)
        self.recorder.flush()
        self.node_failed(node_id, reason)

    def node_failed(self, node_id: str, reason: str) -> None:
        """A node failed for good: stop the other turns and fail the run."""
        label = self.state.nodes[node_id].label if node_id in self.state.nodes else node_id

        async def fail() -> None:
            self.cancel_reason = "another node failed"
            self.broker.abort_all("the run failed")
            await self.cancel_turns(keep=node_id)
            self.recorder.emit({"type": "run.failed", "reason": f"{label}: {reason}"}, node_id)
            self.recorder.flush()

        if self.state.status not in RUN_ENDED and self._failing is None:
            self._failing = asyncio.ensure_future(fail())
            self._failing.add_done_callback(lambda _t: self._poke())

    # --- events and watchdog --------------------------------------------------------------

    def mark_turn_start(self, node_id: str) -> None:
        self._turn_started[node_id] = time.monotonic()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _on_events(self, events: list[dict[str, Any]]) -> None:
        spenders: set[str | None] = set()
        for event in events:
            kind = event.get("type")
            if kind == "telemetry.usage":
                spenders.add(event.get("nodeId"))
            elif kind == "inbox.queued":
                self.scheduler.observe(event)
            elif kind == "turn.status":
                node_id = event.get("nodeId")
                if event.get("status") in TURN_CUT_SHORT and \
                        event.get("agentRunId"):
                    self.restart_from[node_id] = event["agentRunId"]
            elif kind == "bus.message":
                if event.get("handoffTo") and type(event.get("agentRunId")) is str:
                    self.bus_handoffs[event["agentRunId"]] = event
            elif kind == "artifact.created":
                art = event.get("artifact") or {}
                bucket = self.turn_artifacts.get(event.get("nodeId") or "")
                if bucket is not None and art.get("kind") in _ARTIFACT_KINDS_ROUTED:
                    bucket.append({"type": art["kind"],
                                   "ref": f"artifact://{art['kind']}/{art.get('id')}"})
        if spenders:  # not from inside the recorder's delivery: check once it is done
            with contextlib.suppress(RuntimeError):  # no loop: the engine is closing
                asyncio.get_running_loop().call_soon(self._check_budget, spenders)
        self._since_snapshot += len(events)
        if self._since_snapshot >= SNAPSHOT_EVERY and self.recorder.state_dict is not None:
            self._since_snapshot = 0
            self._snapshots.write_soon(self.recorder.state_dict)  # off the loop
        self._poke()

    def write_snapshot(self) -> None:
        """state.json from the folded state (the recorder's fold is exact), written now."""
        self._since_snapshot = 0
        if self.recorder.state_dict is not None:
            self._snapshots.write_now(self.recorder.state_dict)

    async def _watch(self) -> None:
        """Silence watchdog, and pick up bus posts other processes appended."""
        while True:
            await asyncio.sleep(self.options.watch_interval)
            try:
                self.recorder.absorb()
                self._check_silence()
                self._check_budget(set(budget.with_nodes(self.recorder.state_dict or {})))
            except Exception:  # the watchdog must outlive a bad tick
                log.exception("watchdog tick failed")

    async def bus_handoff(self, agent_run_id: str) -> dict[str, Any] | None:
        """The last handoff posted on the bus for ``agent_run_id`` (taken: asked once), after
        every event emitted so far and every post other processes appended is folded."""
        await self.recorder.settle()
        self.recorder.absorb()
        return self.bus_handoffs.pop(agent_run_id, None)

    def _check_silence(self) -> None:
        state = self.state
        if state.status != RunStatus.RUNNING:
            return
        now = time.monotonic()
        for node_id, started in list(self._turn_started.items()):
            config = state.node_configs.get(node_id) or NodeConfig()
            silence = config.limits.silence_sec or self.options.silence_sec
            if not silence or node_id in self._silenced:
                continue
            last = max(started, self.recorder.last_seen.get(node_id, 0.0))
            if now - last >= silence:
                self._silenced.add(node_id)
                self.stall.reset(node_id)
                run = state.running_turns.get(node_id, {}).get("agentRunId")
                self.recorder.emit({"type": "run.stalled", "reason": "silent",
                                    "evidence": silent_evidence(node_id, silence, now - last,
                                                                run)}, node_id)
                self.recorder.flush()

    def _check_budget(self, spenders: set[str | None]) -> None:
        """Pause the run and stop the spending turns when a budget limit is reached."""
        state = self.recorder.state_dict
        if self._closed or state is None or state.get("status") not in RUN_LIVE:
            return
        for node_id in [*sorted(spenders - {None}), None]:
            if node_id in self._over_budget or None in self._over_budget:
                continue
            event = budget.exceeded(state, node_id)
            if event is None:
                continue
            whose = event.get("nodeId")
            self._over_budget.add(whose)
            self.recorder.emit(event)
            self.cancel_reason = f"budget exceeded ({event['limit']})"
            # with the event, not once the task runs: no one who sees the run pause can
            # still answer a question of a turn being ended
            self.broker.abort_nodes(set(self.tasks) if whose is None else {whose},
                                    self.cancel_reason)
            self.recorder.flush()
            task = asyncio.ensure_future(self.cancel_turns(only=whose))
            task.add_done_callback(lambda _t: self._poke())
            return

    # --- shutdown ---------------------------------------------------------------------------

    def halt(self) -> None:
        """Make :meth:`run` return soon without changing the run's status."""
        self._halted = True
        self._poke()

    def moving(self) -> bool:
        """True while the run moves on its own: a turn runs, a step is queued, or the loop
        was woken and has yet to look (a turn just ended and the next may be starting).

        A turn held by an approval does not move on its own: it waits for a person, who
        may be the very console asking (a mistyped command must fail, not wait on it)."""
        woken = self._wake is not None and self._wake.is_set()
        held = {p.node_id for p in self.broker.pending()}
        working = any(node not in held for node in self.tasks)
        return working or self.scheduler.pending_steps() > 0 or woken

    def waiting_for_input(self) -> bool:
        """True when only a person can move the run on (paused, approval, INTERACTIVE step)."""
        state = self.state
        if state.status in RUN_ENDED:
            return False
        if self.broker.pending():
            return True
        if self.tasks or self.scheduler.pending_steps() or self._failing is not None:
            return False
        if state.status == RunStatus.PAUSED:
            return True
        return state.mode == Mode.INTERACTIVE and any(state.inboxes.values())

    async def detach(self) -> None:
        """Leave the run as it is (paused or interrupted) and let another engine resume it."""
        self.cancel_reason = "the engine detached"
        self._stopping = True
        self.broker.abort_all("the engine detached")
        await self._stop_prefetch()
        await self.cancel_turns()
        self.close()

    def close(self) -> None:
        """Flush, write the snapshot, release the log and the engine lock."""
        if self._closed:
            return
        self._closed = True
        if self._prefetch is not None:  # not async: its git is killed, its thread ends alone
            self._prefetch.cancel()
        self.recorder.close()
        self.write_snapshot()
        self._snapshots.close()
        self.log.close()
        self._lock.__exit__(None, None, None)
