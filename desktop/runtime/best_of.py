"""A best-of-N turn: the node's turn run as N attempts at once, and the judge's choice.

A node whose config sets ``attempts`` (desktop/contract/attempts.py) takes each turn
like this, with every step an event in the run's log:

1. ``turn.status started`` takes the inbox; the senders' work is merged into the node's
   worktree as for any turn (desktop/runtime/isolation.py).
2. Each attempt gets its own worktree and branch from that commit
   (desktop/runtime/attempt_trees.py) and runs the node's agent (with the attempt's
   provider or model, if it names one): ``attempt.started``, the agent's events tagged
   with ``attemptIndex``, ``attempt.completed`` with its diffstat and output.
3. The judge picks: ``user`` answers a ``choice`` approval in the inbox; a node named
   as judge gets a turn on the attempts' outputs and diffs and names the winner
   (desktop/runtime/judge_node.py).
4. ``choice.made``: the node's branch fast-forwards to the winner's commit, and the
   turn completes with the winner's output, routed along the node's edges.

An attempt that fails cannot win; when none succeeds, or the choice is denied, the turn
fails. The attempts' branches stay, so losing attempts can be replayed and forked.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.contract.attempts import (
    USER_JUDGE,
    AttemptOverride,
    AttemptSummary,
    ChoiceRequest,
    overrides,
)
from desktop.contract.base import new_id
from desktop.contract.enums import ApprovalStatus
from desktop.contract.isolation import Isolation
from desktop.contract.state import NodeConfig, NodeState
from desktop.runtime import attempt_trees, isolation, judge_node, worktrees
from desktop.runtime.attempt_trees import AttemptTree, Home
from desktop.runtime.dispatch import finish_turn, run_turn
from desktop.runtime.git_base import run8
from desktop.runtime.git_run import GitError
from desktop.runtime.merge_gate import undo
from desktop.runtime.turn import TurnContext, TurnResult, WorkspaceError, resolve_workspace
from desktop.runtime.worktree_merge import MergeConflict
from desktop.runtime.worktrees import NodeTree
from desktop.views.node_ref import exact_node

if TYPE_CHECKING:
    from desktop.runtime.engine import Engine

log = logging.getLogger(__name__)
OUTPUT_SHOWN = 2000
"""How much of an attempt's output the judge is shown (the whole is in its output.md)."""
DIFF_HEAD = 6_000
"""How much of an attempt's diff its choice request carries (the whole is its diff.patch)."""
_ROUTED = frozenset({"diff", "report"})


class AttemptFailed(RuntimeError):
    """The turn's attempts could not be set up or judged; the message says why."""


async def take_turn(engine: Engine, node_id: str) -> None:
    """One turn of ``node_id``: a best-of-N turn when its config sets ``attempts``."""
    config = engine.state.node_configs.get(node_id)
    if config is None or config.attempts is None:
        await run_turn(engine, node_id)
    else:
        await BestOf(engine, node_id, config).run()


class Runners:
    """The attempts' turn runners, cancelled together (the engine sees one runner)."""

    def __init__(self) -> None:
        self.runners: list[Any] = []
        self.cancelled = False
        self.current_agent_run_id: str | None = None

    async def cancel(self) -> None:
        self.cancelled = True
        await asyncio.gather(*(r.cancel() for r in self.runners), return_exceptions=True)


class BestOf:
    """One best-of-N turn of one node (see the module)."""

    def __init__(self, engine: Engine, node_id: str, config: NodeConfig) -> None:
        state = engine.state
        self.engine = engine
        self.node_id = node_id
        self.config = config
        self.items = [item.to_json_dict() for item in state.inboxes.get(node_id, [])]
        self.turn_id = new_id()
        self.turn_number = state.turns.get(node_id, 0) + 1
        self.emit = engine.recorder.emitter(node_id)
        self.runners = Runners()
        self.artifacts: dict[int, list[dict[str, str]]] = {}
        self.source: Path | None = None
        """The node's own workspace, where its worktree setup copies from."""

    async def run(self) -> None:
        engine, recorder = self.engine, self.engine.recorder
        if not self.items or engine.turn_cancelled(self.node_id):
            return
        restart = any(item.get("restart") for item in self.items)
        # Registered before the first await: a stop from then on reaches the attempts,
        # which then never start (the engine cancels the runners it knows of).
        engine.runners[self.node_id] = self.runners
        self.emit({"type": "turn.status", "status": "started", "turnId": self.turn_id,
                   "attempt": 1, "retry": 1, "restart": restart,
                   "inboxItemIds": [i["id"] for i in self.items]})
        try:
            await recorder.settle()
            engine.mark_turn_start(self.node_id)
            await self._turn()
        except asyncio.CancelledError:
            self._end("cancelled", engine.cancel_reason)
            raise
        except MergeConflict as exc:
            self._end("cancelled", str(exc))
            self.emit({"type": "node.patch", "patch": {
                "status": "blocked", "summary": f"merge conflict with {exc.source}"}})
            recorder.flush()
            engine.pause(f"paused: {exc}")
        except (AttemptFailed, GitError, WorkspaceError) as exc:
            self._end("failed", str(exc))
            engine.node_failed(self.node_id, str(exc))
        finally:
            engine.runners.pop(self.node_id, None)

    def _end(self, status: str, reason: str) -> None:
        event = {"type": "turn.status", "status": status, "turnId": self.turn_id,
                 "attempt": 1, "reason": reason}
        if status == "failed":  # its input waits for a resume, as any failed turn's
            event["inputKept"] = True
        self.emit(event)
        self.engine.recorder.flush()

    async def _turn(self) -> None:
        node_ctx = self._context(self.engine.state.nodes[self.node_id], self.config,
                                 self.emit, None)
        if self.runners.cancelled:  # stopped while its turn was being recorded
            self._end("cancelled", self.engine.cancel_reason)
            return
        home, tree = await self._home(node_ctx)
        component = worktrees.branch_component(node_ctx.node.key, self.node_id,
                                               self.engine.run_dir)
        name = f"{component}.t{self.turn_number}"
        count = len(overrides(self.config.attempts))
        trees: list[AttemptTree] = []
        try:
            for i in range(1, count + 1):
                if self.runners.cancelled:  # no attempt starts once the run is stopped
                    self._end("cancelled", self.engine.cancel_reason)
                    return
                trees.append(await asyncio.to_thread(attempt_trees.add, home,
                                                     self.engine.run_dir, name, i))
            results = await asyncio.gather(*(
                self._attempt(t, o, home) for t, o in
                zip(trees, overrides(self.config.attempts), strict=True)))
            if self.runners.cancelled or any(r.cancelled for r, _ in results):
                self._end("cancelled", self.engine.cancel_reason)
                return
            winner, chooser = await self._judge([s for _r, s in results])
            result, summary = results[winner - 1]
            commit = await asyncio.to_thread(attempt_trees.adopt, home, summary.commit or
                                             home.start)
        finally:
            await asyncio.to_thread(attempt_trees.put_away, home, trees)
        self.emit({"type": "choice.made", "turnId": self.turn_id, "attemptIndex": winner,
                   "agentRunId": result.agent_run_id, "commit": summary.commit,
                   "by": chooser})
        said = (summary.output or "").strip().split("\n", 1)[0]
        self.emit({"type": "node.progress",  # the card says what went on, not the wait
                   "message": f"attempt {winner} chosen" + (f": {said}" if said else "")})
        if tree is not None:
            await isolation.record_ahead(tree, self.emit)
        chosen = dataclasses.replace(result, commit=commit if tree is not None else None)
        await finish_turn(self.engine, self.node_id, self.turn_id, 1, chosen, self.items,
                          self.artifacts.get(winner, []))

    async def _home(self, ctx: TurnContext) -> tuple[Home, NodeTree | None]:
        """Where the attempts branch from: the node's worktree with its senders' work
        merged, or the run's scratch repository."""
        self.source = resolve_workspace(ctx)
        ready = await isolation.prepare(ctx, self.source, self.emit)
        if ready.merging is not None and ready.tree is not None:
            await undo(ready.tree)
            raise AttemptFailed("a merge left to the agent cannot be shared by attempts; "
                                "merge it by hand in the node's worktree and resume")
        if ready.tree is not None:
            return await asyncio.to_thread(attempt_trees.node_home, ready.tree), ready.tree
        if self.config.workspace:
            raise AttemptFailed(
                "attempts need the node's own git worktree: its workspace must be in a git "
                f"repository and its isolation not {Isolation.SHARED.value}")
        node = ctx.node
        branch = worktrees.branch_name(ctx.run_id, worktrees.branch_component(
            node.key, node.id, ctx.run_dir))
        message = worktrees.between_message(ctx.run_id, node.key or node.label,
                                            self.turn_number)
        return await asyncio.to_thread(attempt_trees.scratch_home, ready.workdir, branch,
                                       message), None

    async def _attempt(self, tree: AttemptTree, override: AttemptOverride,
                       home: Home) -> tuple[TurnResult, AttemptSummary]:
        """Run one attempt in its worktree; its result and what the judge sees of it."""
        engine, index = self.engine, tree.index
        node = engine.state.nodes[self.node_id]
        if override.provider is not None:
            node = node.model_copy(update={"provider": override.provider})
        config = self.config.model_copy(update={
            "workspace": str(tree.workdir), "isolation": Isolation.SHARED.value,
            "attempts": None, **({"model": override.model} if override.model else {})})
        self.artifacts[index] = []

        def started(agent_run_id: str, _restart: int) -> asyncio.Future[None]:
            self.emit({"type": "attempt.started", "turnId": self.turn_id,
                       "attemptIndex": index, "agentRunId": agent_run_id,
                       "branch": tree.branch, "provider": str(node.provider),
                       "model": config.model})
            return asyncio.ensure_future(engine.recorder.settle())

        ctx = self._context(node, config, self._tagged(index), started)
        runner = engine.new_runner()
        self.runners.runners.append(runner)
        error = None
        result: TurnResult | None = None
        try:
            setup = self.config.worktree_setup
            if setup is not None and not setup.empty and not self.runners.cancelled:
                await isolation.set_up(ctx, worktree=tree.path, workdir=tree.workdir,
                                       branch=tree.branch, source=self.source or tree.workdir,
                                       emit=self._tagged(index), command=runner.command)
            # checked with no await before the run begins: a runner's run() starts afresh,
            # so a cancel that came before it would be forgotten and the agent launched
            if not self.runners.cancelled:
                result = await runner.run(ctx)
        except asyncio.CancelledError:
            raise
        except WorkspaceError as exc:  # its setup failed: said in full, no traceback
            result, error = None, str(exc)
        except Exception as exc:  # a broken attempt loses; the others go on
            log.exception("attempt %d of node %s failed", index, self.node_id)
            result, error = None, f"{type(exc).__name__}: {exc}"
        if result is None:
            result = TurnResult("", -1, False, "", "", None, None, None, None, False,
                                error, False, cancelled=error is None)
        if result.cancelled and not result.agent_run_id:  # stopped before it began
            return result, AttemptSummary(index=index, ok=False, branch=tree.branch,
                                          error=self.engine.cancel_reason)
        ok = result.ok and not result.cancelled
        message = worktrees.turn_message(ctx.run_id, f"{node.key or node.label} attempt "
                                        f"{index}", self.node_id, self.turn_number,
                                        result.agent_run_id, 1)
        commit = await asyncio.to_thread(attempt_trees.commit, tree, message)
        diff = engine.run_dir / "agents" / result.agent_run_id / "diff.patch"
        summary = AttemptSummary(
            index=index, agentRunId=result.agent_run_id or None, ok=ok, branch=tree.branch,
            commit=commit, diffstat=await asyncio.to_thread(attempt_trees.diffstat, tree,
                                                            home.start),
            diffPath=diff.relative_to(engine.run_dir).as_posix()
            if result.agent_run_id and diff.is_file() else None,
            diffHead=await asyncio.to_thread(_head, diff) if result.agent_run_id else "",
            output=(result.output_text or "")[:OUTPUT_SHOWN],
            error=None if ok else (result.error or f"exit code {result.exit_code}"))
        self.emit({"type": "attempt.completed", "turnId": self.turn_id,
                   "attemptIndex": index, "summary": summary.to_json_dict()})
        return result, summary

    def _tagged(self, index: int) -> Callable[[dict[str, Any]], None]:
        """The attempt's ``emit``: its events carry ``attemptIndex``, and its diffs and
        reports are kept for routing should it win."""
        emit, kept = self.emit, self.artifacts[index]

        def tagged(event: dict[str, Any]) -> None:
            event["attemptIndex"] = index
            if event.get("type") == "artifact.created":
                art = event.get("artifact") or {}
                if art.get("kind") in _ROUTED:
                    kept.append({"type": art["kind"],
                                 "ref": f"artifact://{art['kind']}/{art.get('id')}"})
            emit(event)
        return tagged

    async def _judge(self, summaries: list[AttemptSummary]) -> tuple[int, str]:
        """The index of the attempt that goes on, and who chose it: the judge node's key,
        or where the person who chose did (the resolution's ``by``: the terminal, or the
        service for the app), so the choice reads like any other decision of theirs."""
        request = ChoiceRequest(turnId=self.turn_id, attempts=summaries)
        if not request.choosable():
            raise AttemptFailed(f"none of the {len(summaries)} attempts succeeded")
        if self.config.judge != USER_JUDGE:
            return await self._judge_node(request), self.config.judge
        self.emit({"type": "node.progress", "message": f"{len(summaries)} attempts done: "
                                                       "waiting for a choice"})
        resolution = await self.engine.broker.request_choice(
            self.node_id, request.to_json_dict(),
            f"which attempt of run {run8(self.engine.state.id)} goes on")
        if resolution.status == ApprovalStatus.DENIED or resolution.choice is None:
            why = f" ({resolution.reason})" if resolution.reason else ""
            raise AttemptFailed(f"no attempt was chosen{why}")
        return resolution.choice, resolution.by or USER_JUDGE

    async def _judge_node(self, request: ChoiceRequest) -> int:
        state = self.engine.state
        judge = exact_node(state, self.config.judge)
        if judge is None:
            raise AttemptFailed(f"the judge {self.config.judge!r} is not a node of the run; "
                                "set judge to user or a node's key")
        node = state.nodes[self.node_id]
        self.emit({"type": "node.progress", "message": f"{len(request.attempts)} attempts "
                   f"done: {state.nodes[judge].label} judges them"})
        self.engine.judged.add(self.node_id)
        try:
            return await judge_node.ask(self.engine, judge, node.key or node.label, request)
        except judge_node.JudgeFailed as exc:
            raise AttemptFailed(str(exc)) from None
        finally:
            self.engine.judged.discard(self.node_id)

    def _context(self, node: NodeState, config: NodeConfig, emit: Callable[[dict], None],
                 on_agent_run: Callable[[str, int], Any] | None) -> TurnContext:
        engine = self.engine
        state = engine.state
        return TurnContext(
            run_id=state.id, run_dir=engine.run_dir, node=node, config=config,
            global_mode=str(state.global_mode), items=self.items,
            turn_number=self.turn_number, attempt=1,
            restart=any(item.get("restart") for item in self.items),
            parent_agent_run_id=_parent_run(self.items),
            previous_agent_run_id=state.last_agent_run.get(self.node_id), emit=emit,
            gate=engine.gate_for(self.node_id), conductor_url=engine.options.conductor_url,
            project_id=engine.options.project_id, task_id=state.id, data_dir=engine.data_dir,
            workflow_dir=engine.workflow_dir(), session_id=None, on_agent_run=on_agent_run,
            executor=config.executor if config.executor is not None else state.executor,
            isolation=state.isolation, nodes=dict(state.nodes),
            ask_merge=lambda request: engine.broker.request_merge(self.node_id, request))


def _parent_run(items: list[dict[str, Any]]) -> str | None:
    for item in items:
        parent = (item.get("envelope") or {}).get("fromAgentRunId")
        if parent:
            return parent
    return None


__all__ = ["AttemptFailed", "BestOf", "take_turn"]


def _head(diff: Path) -> str:
    """The first DIFF_HEAD characters of an attempt's diff ("" when it has none)."""
    try:
        with diff.open(encoding="utf-8", errors="replace") as fh:
            text = fh.read(DIFF_HEAD + 1)
    except OSError:
        return ""
    return text if len(text) <= DIFF_HEAD else text[:DIFF_HEAD] + "\n... (more in diff.patch)"
