"""One turn of one node: prompt, agent process(es), output, diff, verification.

A turn is one agent run, or with ``untilDone`` a chain of agent runs that
ends when the agent writes DONE in its run folder (at most ``maxRestarts``
restarts). Each agent run gets its own folder under ``runs/<runId>/agents/``.
"""

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from desktop.contract.state import NodeConfig, NodeState
from desktop.disk.keychain import keyring_env
from desktop.providers import registry
from desktop.providers.base import Gate, Provider
from desktop.providers.redact import Redactor
from desktop.runtime import executor as executors
from desktop.runtime import isolation, merge_gate
from desktop.runtime.agent_run import AgentRun, AgentRunResult
from desktop.runtime.verify import run_verification
from desktop.runtime.workspace import init_scratch
from desktop.runtime.workspace_error import WorkspaceError
from desktop.views.node_folder import workspace_path
from desktop.wording import plural

T = TypeVar("T")


@dataclass
class TurnContext:
    """What the engine gives the turn runner."""

    run_id: str
    run_dir: Path
    node: NodeState
    config: NodeConfig
    global_mode: str
    items: list[dict]
    turn_number: int
    attempt: int
    restart: bool
    parent_agent_run_id: str | None
    previous_agent_run_id: str | None
    emit: Callable[[dict], None]
    gate: Gate
    conductor_url: str | None
    project_id: str
    task_id: str
    data_dir: Path
    workflow_dir: Path | None = None
    """Folder of the workflow file; relative ``workspace`` paths are resolved against it."""
    session_id: str | None = None
    """The provider session of the node's previous turn, if any."""
    on_agent_run: Callable[[str, int], Awaitable[None] | None] | None = None
    """Called with (agentRunId, attempt) when each agent run of the turn begins; an
    awaitable it returns is awaited before the agent starts."""
    grace_sec: float = 3.0
    emit_many: Callable[[list[dict]], None] | None = None
    """Like ``emit`` for a list of partial events at once (a streaming agent's output)."""
    executor: Any = "local"
    """Where the node's agent runs (the node's executor, else the run's)."""
    bus_handoff: Callable[[str], Awaitable[dict | None]] | None = None
    """The last ``bus.message`` with ``handoffTo`` posted for an agent run, once every event
    so far is in; without it the run's log is searched."""
    isolation: str | None = None
    """The run's isolation (the node's own is in ``config``); None: the default."""
    nodes: Mapping[str, NodeState] = field(default_factory=dict)
    """The run's nodes at the turn's start (whose branches the node's inbox brings)."""
    ask_merge: Callable[[dict[str, Any]], Awaitable[Any]] | None = None
    """Put a merge that conflicts to a person (a ``merge`` approval); the resolution.
    None: a conflict is undone and the turn raises MergeConflict."""
    worktree_ready: Callable[[], None] | None = None
    """Called once the node's own worktree is ready (the run's base commit exists): the
    engine then prepares the other nodes' worktrees (desktop/runtime/worktree_prefetch.py)."""


@dataclass
class TurnResult:
    agent_run_id: str
    exit_code: int
    ok: bool
    output_text: str
    output_hash: str
    diff_hash: str | None
    verification: dict | None
    handoff: dict | list[dict] | None
    session_id: str | None
    done: bool
    error: str | None
    timed_out: bool
    agent_run_ids: list[str] = field(default_factory=list)
    cancelled: bool = False
    output_limit_exceeded: bool = False
    oom_killed: bool = False
    commit: str | None = None
    """The node's commit at the turn's end, when it works in its own git worktree."""


def resolve_workspace(ctx: TurnContext) -> Path:
    """The node's working folder, created on demand; WorkspaceError when it cannot be."""
    path = workspace_path(ctx.config.workspace, ctx.workflow_dir, ctx.run_dir)
    if ctx.config.workspace:
        # validate says so too, but the path can become a file after the run was checked
        try:
            path.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise WorkspaceError(
                f"workspace {ctx.config.workspace!r}: {path} is a file, not a folder; name a "
                "folder in nodeConfigs.<id>.workspace, or move the file away") from None
        except OSError as exc:
            raise WorkspaceError(
                f"workspace {ctx.config.workspace!r}: cannot make the folder {path}: "
                f"{exc.strerror or exc}; name a folder you may write to") from None
        return path.resolve()
    init_scratch(path)
    return path.resolve()


def _nothing_ran(session: str | None) -> TurnResult:
    """The result of a turn stopped before its agent ran."""
    return TurnResult("", -1, False, "", "", None, None, None, session, False, "cancelled",
                      False, cancelled=True)


class TurnRunner:
    """Runs turns; ``cancel()`` stops the current agent's whole process group."""

    def __init__(self, provider_factory: Callable[[str], Provider] = registry.create):
        self._factory = provider_factory
        self._current: AgentRun | None = None
        self._command: asyncio.Future[Any] | None = None
        self._cancelled = False
        self.current_agent_run_id: str | None = None

    async def run(self, ctx: TurnContext) -> TurnResult:
        self._cancelled = False
        # keys kept in the OS keyring reach the agent by name, and are redacted like exported ones
        keys = await asyncio.to_thread(keyring_env)
        redactor = Redactor.from_env(keys, data_dir=ctx.data_dir)

        def emit(event: dict[str, Any]) -> None:
            ctx.emit(redactor.event(event))

        sink = ctx.emit_many

        def emit_many(events: list[dict[str, Any]]) -> None:
            if redactor:
                events = [redactor.event(e) for e in events]
            if sink is not None:
                sink(events)
            else:
                for event in events:
                    ctx.emit(event)

        # An unreachable cluster raises ExecutorUnavailable here, before the turn starts:
        # the engine pauses the run and the node's inbox stays as it was.
        await executors.connect(ctx.executor)
        try:
            ready = await isolation.prepare(ctx, resolve_workspace(ctx), emit, redactor,
                                            command=self.command)
        except asyncio.CancelledError:
            if self._ours():  # stopped during the worktree's setup command
                return _nothing_ran(ctx.session_id)
            raise
        workspace, tree, merging = ready.workdir, ready.tree, ready.merging
        config = ctx.config
        attempts = config.max_restarts + 1 if config.until_done else 1
        previous = ctx.previous_agent_run_id
        session = ctx.session_id
        results: list[AgentRunResult] = []
        index = 0
        while not self._cancelled:
            if index >= attempts or (results and results[-1].done):
                if merging is None or tree is None:
                    break
                # the agent's runs left the merge conflicted: a person decides again
                merging = await merge_gate.ask_again(tree, merging, ctx.ask_merge, emit)
                if merging is None:  # a person concluded it: the branch has its commit
                    await isolation.record_ahead(tree, emit)
                    break
            index += 1
            run = AgentRun(ctx, workspace=workspace, attempt=index,
                           restart=ctx.restart or index > 1, previous_run_id=previous,
                           session_id=session, emit=emit, emit_many=emit_many,
                           redactor=redactor, keys=keys,
                           factory=self._factory, tree=tree, merging=merging)
            self._current = run
            one = await run.execute(on_id=self._note_id)
            results.append(one)
            previous, session = one.agent_run_id, one.session_id or session
            if merging is not None and tree is not None and \
                    not await isolation.merge_open(tree):
                merging = None
            if one.timed_out or one.cancelled:
                break
        self._current = None
        stopped = self._cancelled or bool(results and results[-1].cancelled)
        if merging is not None and tree is not None and stopped:
            await merge_gate.undo(tree)  # stopped with the merge open: as before it
        last = results[-1] if results else None
        if last is None:  # cancelled before anything ran
            return _nothing_ran(session)
        verification = None
        if config.verification and not self._cancelled:
            verification = await self._verify(ctx, workspace, last, redactor, emit)
        error = last.error
        ok = last.exit_code == 0 and not (last.timed_out or last.cancelled or self._cancelled)
        ok = ok and not last.output_limit_exceeded and not last.uncommitted
        if config.until_done and ok and not last.done:
            ok = False
            error = (f"the agent did not write DONE in {plural(len(results), 'run')} "
                     f"(maxRestarts={config.max_restarts})")
        return TurnResult(
            agent_run_id=last.agent_run_id, exit_code=last.exit_code, ok=ok,
            output_text=last.output_text, output_hash=last.output_hash,
            diff_hash=last.diff_hash, verification=verification, handoff=last.handoff,
            session_id=last.session_id or session, done=last.done, error=error,
            timed_out=last.timed_out, agent_run_ids=[r.agent_run_id for r in results],
            cancelled=last.cancelled or self._cancelled,
            output_limit_exceeded=last.output_limit_exceeded, oom_killed=last.oom_killed,
            commit=await isolation.head(tree) if tree is not None else None,
        )

    def _note_id(self, agent_run_id: str) -> None:
        self.current_agent_run_id = agent_run_id

    async def _verify(self, ctx: TurnContext, workspace: Path, last: AgentRunResult,
                      redactor: Redactor, emit: Callable[[dict], None]) -> dict | None:
        try:
            result = await self.command(run_verification(
                ctx.config.verification or "", cwd=workspace, env=last.base_env,
                log_path=last.folder / "verification.txt",
                timeout=ctx.config.limits.timeout_sec, redactor=redactor))
        except asyncio.CancelledError:
            if self._ours():
                return None
            raise
        emit({"type": "verification.result", "command": result["command"],
              "exitCode": result["exitCode"], "ok": result["ok"],
              "outputTail": result["outputTail"], "agentRunId": last.agent_run_id})
        return result

    async def cancel(self) -> None:
        """Stop the turn: kill the current agent's process group, or end the worktree
        setup or verification command it runs; no more restarts."""
        self._cancelled = True
        current, command = self._current, self._command
        if current is not None:
            await current.cancel()
        if command is not None:
            command.cancel()

    def _ours(self) -> bool:
        """Whether a CancelledError here came from :meth:`cancel` ending a command, not
        from the turn's own task being cancelled."""
        task = asyncio.current_task()
        return self._cancelled and not (task is not None and task.cancelling())

    async def command(self, work: Awaitable[T]) -> T:
        """Run a command of the turn's own (its worktree's setup, its verification) so that
        :meth:`cancel` ends it at once: CancelledError here then."""
        task = asyncio.ensure_future(work)
        self._command = task
        try:
            if self._cancelled:
                task.cancel()
            return await task
        finally:
            self._command = None

