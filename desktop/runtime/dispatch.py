"""One node turn from inbox to routed output: start, run with retries, end, route, check.

The turn's events, in order: ``turn.status started`` (takes the inbox items),
the agent's stream, then either ``turn.status completed`` (with the hashes the
stall detector counts) followed by ``handoff.sent`` / ``inbox.queued`` for each
route and ``run.stalled`` when the node repeats itself, or ``turn.status
failed`` once retries are used up (the engine then fails the run), or
``turn.status cancelled`` when the run stops.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from desktop.contract.base import new_id
from desktop.runtime.executor import ExecutorUnavailable
from desktop.runtime.routing import build_envelope, choose_routes, route_events
from desktop.runtime.stall import HEAD_CHARS
from desktop.runtime.turn import TurnContext, TurnResult, WorkspaceError
from desktop.runtime.worktree_merge import MergeConflict

if TYPE_CHECKING:
    from desktop.runtime.engine import Engine

log = logging.getLogger(__name__)


def _parent_run(items: list[dict[str, Any]]) -> str | None:
    for item in items:
        parent = (item.get("envelope") or {}).get("fromAgentRunId")
        if parent:
            return parent
    return None


def _failure(result: TurnResult | None, error: str | None) -> str | None:
    """Why a turn failed, or None when it succeeded."""
    if result is None:
        return error or "the turn could not run"
    if result.ok:
        return None
    if result.error:
        return result.error
    if result.timed_out:
        return "the agent timed out"
    return f"the agent exited with code {result.exit_code}"


def completed_event(turn_id: str, attempt: int, result: TurnResult) -> dict[str, Any]:
    """``turn.status completed`` carrying what loop safety needs to be rebuilt from the log."""
    event: dict[str, Any] = {
        "type": "turn.status", "status": "completed", "turnId": turn_id,
        "agentRunId": result.agent_run_id, "attempt": attempt, "exitCode": result.exit_code,
        "outputHash": result.output_hash, "outputHead": (result.output_text or "")[:HEAD_CHARS],
        "done": bool(result.done),
    }
    if result.diff_hash:
        event["diffHash"] = result.diff_hash
    if result.verification:
        v = result.verification
        event["verification"] = {"ok": bool(v.get("ok")), "exitCode": v.get("exitCode"),
                                 "hash": v.get("hash")}
    if result.session_id:
        event["sessionId"] = result.session_id
    return event


async def run_turn(engine: Engine, node_id: str) -> None:
    """Take one turn of ``node_id`` with everything now in its inbox."""
    state = engine.state
    items = [item.to_json_dict() for item in state.inboxes.get(node_id, [])]
    if not items:
        return
    restart = any(item.get("restart") for item in items)
    turn_id = new_id()
    turn_number = state.turns.get(node_id, 0) + 1
    parent = _parent_run(items)
    previous = (engine.restart_from.get(node_id) if restart else None) \
        or state.last_agent_run.get(node_id)
    recorder = engine.recorder
    created: list[dict[str, str]] = []
    engine.turn_artifacts[node_id] = created
    agent_runs = 0
    retry = 1

    def on_agent_run(agent_run_id: str, _restart_index: int) -> asyncio.Future[None]:
        # ``started`` carries the agent run id, so it is written when the run begins;
        # later agent runs of the same turn (restarts, retries) keep the turn's items.
        # The agent run awaits the returned future: the event is durable and folded
        # before the agent starts, without blocking the loop on the fsync.
        nonlocal agent_runs
        agent_runs += 1
        recorder.emit({"type": "turn.status", "status": "started", "turnId": turn_id,
                       "agentRunId": agent_run_id, "attempt": agent_runs, "retry": retry,
                       "inboxItemIds": [i["id"] for i in items] if agent_runs == 1 else [],
                       "restart": restart or agent_runs > 1}, node_id)
        engine.mark_turn_start(node_id)
        return asyncio.ensure_future(recorder.settle())

    while True:
        state = engine.state
        node = state.nodes[node_id]
        config = state.node_configs.get(node_id) or engine.default_config()
        ctx = TurnContext(
            run_id=state.id, run_dir=engine.run_dir, node=node, config=config,
            global_mode=str(state.global_mode), items=items, turn_number=turn_number,
            attempt=retry, restart=restart or retry > 1, parent_agent_run_id=parent,
            previous_agent_run_id=previous, emit=recorder.emitter(node_id),
            gate=engine.gate_for(node_id), conductor_url=engine.options.conductor_url,
            project_id=engine.options.project_id, task_id=state.id, data_dir=engine.data_dir,
            workflow_dir=engine.workflow_dir(), session_id=node.session.session_id,
            on_agent_run=on_agent_run, emit_many=recorder.batch_emitter(node_id, redacted=True),
            bus_handoff=engine.bus_handoff,
            executor=config.executor if config.executor is not None else state.executor,
            isolation=state.isolation, nodes=dict(state.nodes),
            ask_merge=lambda request: engine.broker.request_merge(node_id, request),
            worktree_ready=lambda: engine.prefetch_worktrees(node_id),
        )
        runner = engine.new_runner()
        if engine.turn_cancelled(node_id):  # cancelled before this task first ran
            _cancelled(engine, node_id, turn_id, agent_runs, runner)
            return
        engine.runners[node_id] = runner
        engine.mark_turn_start(node_id)
        error = None
        try:
            result: TurnResult | None = await runner.run(ctx)
        except asyncio.CancelledError:
            _cancelled(engine, node_id, turn_id, agent_runs, runner)
            raise
        except ExecutorUnavailable as exc:
            _unavailable(engine, node_id, turn_id, agent_runs, str(exc))
            return
        except MergeConflict as exc:
            _merge_conflict(engine, node_id, turn_id, agent_runs, exc)
            return
        except WorkspaceError as exc:  # the user's to fix, said in full: no traceback
            result, error = None, str(exc)
        except Exception as exc:  # a broken runner fails the turn, not the engine
            log.exception("turn of node %s failed", node_id)
            result, error = None, f"{type(exc).__name__}: {exc}"
        finally:
            engine.runners.pop(node_id, None)
        if result is not None and result.cancelled:
            _cancelled(engine, node_id, turn_id, agent_runs, runner)
            return
        if result is not None and result.agent_run_id:
            previous = result.agent_run_id
        reason = _failure(result, error)
        if reason is None:
            break
        if retry > config.limits.retries:
            recorder.emit({"type": "turn.status", "status": "failed", "turnId": turn_id,
                           "attempt": max(agent_runs, 1), "reason": reason, "inputKept": True,
                           "agentRunId": result.agent_run_id if result else None,
                           "exitCode": result.exit_code if result else None}, node_id)
            recorder.flush()
            engine.node_failed(node_id, reason)
            return
        delay = config.limits.retry_backoff_sec * 2 ** (retry - 1)
        recorder.emit({"type": "node.progress",
                       "message": f"attempt {retry} failed ({reason[:120]}); "
                                  f"retrying in {delay:g}s"}, node_id)
        recorder.flush()
        await asyncio.sleep(delay)
        retry += 1
    assert result is not None
    await finish_turn(engine, node_id, turn_id, max(agent_runs, 1), result, items, created)


def _unavailable(engine: Engine, node_id: str, turn_id: str, agent_runs: int,
                 reason: str) -> None:
    """The node's executor cannot be reached: say so and pause the run (not fail it);
    the node's input waits in its inbox until the run is resumed."""
    recorder = engine.recorder
    if agent_runs:  # a retry found the cluster gone: its items go back to the inbox
        recorder.emit({"type": "turn.status", "status": "cancelled", "turnId": turn_id,
                       "attempt": agent_runs, "reason": reason}, node_id)
    recorder.emit({"type": "bus.message", "busType": "ERROR", "message": reason}, node_id)
    recorder.flush()
    engine.pause(f"paused: {reason}")


def _merge_conflict(engine: Engine, node_id: str, turn_id: str, agent_runs: int,
                    conflict: MergeConflict) -> None:
    """A merge of a sender's work was undone (a person denied the ``merge`` approval, or
    git could not merge): the node is blocked and the run paused, with the node's input
    still in its inbox, until a person merges by hand and resumes."""
    recorder = engine.recorder
    if agent_runs:  # a retry met the conflict: its items go back to the inbox
        recorder.emit({"type": "turn.status", "status": "cancelled", "turnId": turn_id,
                       "attempt": agent_runs, "reason": str(conflict)}, node_id)
    recorder.emit({"type": "bus.message", "busType": "ERROR", "message": str(conflict)},
                  node_id)
    recorder.emit({"type": "node.patch", "patch": {
        "status": "blocked", "summary": conflict.summary()}}, node_id)
    recorder.flush()
    engine.pause(f"paused: {conflict}")


def _cancelled(engine: Engine, node_id: str, turn_id: str, agent_runs: int,
               runner: Any) -> None:
    if not agent_runs:  # cancelled before its agent started: no turn began, none ends
        return
    event: dict[str, Any] = {"type": "turn.status", "status": "cancelled", "turnId": turn_id,
                             "attempt": agent_runs, "reason": engine.cancel_reason}
    agent_run = getattr(runner, "current_agent_run_id", None)
    if agent_run:
        event["agentRunId"] = agent_run
    engine.recorder.emit(event, node_id)
    engine.recorder.flush()


async def finish_turn(engine: Engine, node_id: str, turn_id: str, attempt: int,
                      result: TurnResult, items: list[dict[str, Any]],
                      artifacts: list[dict[str, str]]) -> None:
    """Record the completed turn, route its output and check for a stall, in one batch;
    returns once the batch is durable and folded (the writer thread does the fsync)."""
    recorder = engine.recorder
    done = completed_event(turn_id, attempt, result)
    stall = engine.stall.observe_event({**done, "nodeId": node_id})
    recorder.emit(done, node_id)
    state = engine.state
    routes, problem = choose_routes(state, node_id, handoff=result.handoff, done=result.done,
                                    consumed_kinds={str(i.get("kind")) for i in items})
    if problem:
        recorder.emit({"type": "bus.message", "busType": "ERROR", "message": problem,
                       "agentRunId": result.agent_run_id}, node_id)
    for route, directive in routes:
        envelope = build_envelope(route, node_id, result.output_text or "", directive,
                                  result.agent_run_id, artifacts, result.commit)
        for event in route_events(route, envelope):
            recorder.emit(event)
    if result.session_id and result.session_id != state.nodes[node_id].session.session_id:
        recorder.emit({"type": "node.patch", "patch": {"session": {
            "sessionId": result.session_id}}}, node_id)
    if stall is not None:
        engine.stall.reset(node_id)
        recorder.emit({"type": "run.stalled", "reason": stall.reason,
                       "evidence": stall.evidence}, node_id)
    await recorder.settle()
