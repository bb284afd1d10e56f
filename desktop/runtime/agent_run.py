"""One agent process run of a turn, with its folder, run-info.yaml and lifecycle events.

The file work around the agent (prompt files, run-info.yaml, output.md, diff.patch,
the handoff search through the log) runs on worker threads: other agents keep
streaming on the event loop meanwhile. Each step is awaited where it stood, so the
run's events keep their order (run-info.yaml is on disk before RUN_START).
"""

import asyncio
import contextlib
import hashlib
import inspect
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.contract.base import new_id, utc_now
from desktop.contract.run_info import RunInfo
from desktop.contract.sandbox import Sandbox
from desktop.disk.atomic import atomic_write_bytes
from desktop.providers.base import Provider, TurnOutcome, TurnRequest
from desktop.providers.redact import Redactor
from desktop.runtime import agent_folder as af
from desktop.runtime import executor as executors
from desktop.runtime import (
    isolation,
    memory_watch,
    merge_gate,
    runner_record,
    sandbox,
    secret_scan,
    workspace_diff,
)
from desktop.runtime.agent_env import build_env, bus_command, key_provider, protocol_vars
from desktop.runtime.git_run import GitError
from desktop.runtime.prompt import build_blocks, merge_block, preamble
from desktop.store.run_info import validate_at_completion, validate_at_creation, write_run_info
from desktop.store.runner import RUNNER_JSON
from desktop.store.secret_names import user_patterns
from desktop.views import secret_words
from desktop.wording import plural

if TYPE_CHECKING:
    from desktop.runtime.merge_gate import OpenMerge
    from desktop.runtime.turn import TurnContext
    from desktop.runtime.worktrees import NodeTree


@dataclass
class AgentRunResult:
    agent_run_id: str
    folder: Path
    exit_code: int = -1
    output_text: str = ""
    output_hash: str = ""
    diff_hash: str | None = None
    handoff: dict | list[dict] | None = None
    session_id: str | None = None
    done: bool = False
    error: str | None = None
    timed_out: bool = False
    cancelled: bool = False
    output_limit_exceeded: bool = False
    oom_killed: bool = False
    refused: bool = False
    uncommitted: bool = False
    """The agent's change could not be committed on the node's branch (``error`` says why):
    the turn fails, since its branch does not hold its work."""
    runner_hash: str | None = None
    base_env: dict[str, str] = field(default_factory=dict)


class AgentRun:
    """Prepare the folder, run the provider under the limits, collect what it left."""

    def __init__(self, ctx: "TurnContext", *, workspace: Path, attempt: int, restart: bool,
                 previous_run_id: str | None, session_id: str | None,
                 emit: Callable[[dict], None], redactor: Redactor,
                 factory: Callable[[str], Provider],
                 emit_many: Callable[[list[dict]], None] | None = None,
                 keys: Mapping[str, str] | None = None, tree: "NodeTree | None" = None,
                 merging: "OpenMerge | None" = None):
        self.ctx, self.workspace, self.attempt, self.restart = ctx, workspace, attempt, restart
        self.tree = tree  # the node's own worktree: the run ends with a commit on its branch
        self.merging = merging  # a merge left conflicted for this agent: its prompt says so
        self.keys = dict(keys or {})  # API keys from the keyring, for names the env lacks
        self.previous_run_id, self.session_id = previous_run_id, session_id
        self.emit, self.redactor, self.factory = emit, redactor, factory
        self.emit_many = emit_many or self._emit_each
        self.provider: Provider | None = None
        self.task: asyncio.Task | None = None
        self.cancelled = False
        self.info: RunInfo | None = None
        self._info_write: asyncio.Future[list[str]] | None = None
        self.launch: sandbox.SandboxLaunch | None = None
        self._watch: asyncio.Task | None = None
        self.oom_killed = False
        self.session: executors.Session | None = None

    # --- set-up ---------------------------------------------------------------

    def _artifact(self, kind: str, path: Path, **extra: Any) -> None:
        ctx = self.ctx
        self.emit({"type": "artifact.created", "artifact": {
            "id": new_id(), "runId": ctx.run_id, "nodeId": ctx.node.id, "kind": kind,
            "name": path.name, "path": path.relative_to(ctx.run_dir).as_posix(),
            "createdAt": utc_now(), **extra}})

    def _emit_each(self, events: list[dict]) -> None:
        for event in events:
            self.emit(event)

    def _log(self, text: str, stream: str = "stderr") -> None:
        self.emit({"type": "node.log", "stream": stream, "text": text})

    def _bus(self, bus_type: str, message: str, agent_run_id: str, **extra: Any) -> None:
        self.emit({"type": "bus.message", "busType": bus_type, "message": message,
                   "agentRunId": agent_run_id, **extra})

    async def execute(self, on_id: Callable[[str], None]) -> AgentRunResult:
        ctx = self.ctx
        agent_run_id, folder = af.create_agent_folder(ctx.run_dir)
        on_id(agent_run_id)
        if ctx.on_agent_run is not None:
            noted = ctx.on_agent_run(agent_run_id, self.attempt)
            if inspect.isawaitable(noted):
                await noted
        res = AgentRunResult(agent_run_id, folder, session_id=self.session_id)
        injected = protocol_vars(
            run_id=ctx.run_id, run_dir=ctx.run_dir, agent_run_dir=folder,
            agent_run_id=agent_run_id, parent_agent_run_id=ctx.parent_agent_run_id,
            project_id=ctx.project_id, task_id=ctx.task_id, conductor_url=ctx.conductor_url,
            node_id=ctx.node.id, node_key=ctx.node.key, turn_number=ctx.turn_number,
            attempt=self.attempt)
        env = build_env(key_provider(str(ctx.node.provider), ctx.config.command),
                        ctx.config.env_allowlist, injected, {**self.keys, **os.environ})
        res.base_env = build_env("", ctx.config.env_allowlist, injected)
        blocks = build_blocks(
            role_name=ctx.node.role_template, instructions=ctx.config.instructions,
            global_mode=str(ctx.global_mode), items=ctx.items, restart=self.restart,
            preamble_text=preamble(env, str(folder), bus_command(env)),
            extra=[merge_block(self.merging.request, self.tree.repo.prefix)]
            if self.merging is not None and self.tree is not None else None)
        prompt = await asyncio.to_thread(_prepare_folder, folder, blocks, self.redactor)
        for name in (af.PROMPT_FULL, af.PROMPT_BLOCKS):
            self._artifact("prompt", folder / name)
        self.session = session = executors.open_session(
            ctx.executor, workspace=self.workspace, folder=folder, run_dir=ctx.run_dir,
            agent_run_id=agent_run_id, node=ctx.node.key or ctx.node.label,
            provider=str(ctx.node.provider),
            sandbox=ctx.config.sandbox.to_json_dict() if ctx.config.sandbox else None,
            emit=self.emit)
        try:
            return await self._execute(res, session, folder, prompt, env)
        finally:
            await session.close()

    async def _execute(self, res: AgentRunResult, session: executors.Session, folder: Path,
                       prompt: str, env: dict[str, str]) -> AgentRunResult:
        ctx, agent_run_id = self.ctx, res.agent_run_id
        refused = None
        try:
            await session.open()
        except executors.RemoteError as exc:
            refused = str(exc)
        if self.cancelled and refused is None:  # stopped while the worker was being set up
            refused = "the agent was stopped before it started"
        tree = self.tree
        start = await isolation.start_point(tree) if tree is not None else None
        git = tree is None and not session.remote and \
            await workspace_diff.is_git_workspace(self.workspace)
        before = await workspace_diff.snapshot(self.workspace) if git else None
        bus = ctx.run_dir / "events.jsonl"
        bus_offset = bus.stat().st_size if bus.is_file() else 0

        self.launch = sandbox.SandboxLaunch(ctx.config.sandbox or Sandbox(), self.workspace,
                                            folder, bus)
        if not session.remote and refused is None:  # a worker checks its own sandbox
            refused = await asyncio.to_thread(sandbox.refusal, ctx.node.key or ctx.node.label,
                                              str(ctx.node.provider), ctx.config.sandbox)
        # cancel() found no provider to stop while the awaits above ran: nothing may spawn
        if self.cancelled and refused is None:
            refused = "the agent was stopped before it started"
        self.provider = provider = self.factory(str(ctx.node.provider))
        request = TurnRequest(
            run_id=ctx.run_id, node=ctx.node, config=ctx.config, agent_run_id=agent_run_id,
            agent_run_dir=folder, prompt=prompt, env=env, cwd=self.workspace,
            turn_number=ctx.turn_number, gate=ctx.gate, inbox=list(ctx.items),
            session_id=self.session_id, stdout_path=folder / af.STDOUT,
            stderr_path=folder / af.STDERR,
            on_start=lambda pid, pgid: self._started(res, pid, pgid),
            max_output_bytes=ctx.config.max_output_bytes,
            secrets=list(self.redactor.secrets),
            launch=self.launch.wrap if not session.remote else _unwrapped,
            spawn=session.process)
        if refused is None:
            await self._consume(provider, request, res)
            outcome = provider.outcome
        else:  # never run a sandboxed node without its sandbox
            self._log(refused)
            res.refused = True
            outcome = TurnOutcome(exit_code=126, error=refused)
        if self.info is None:  # never spawned: record the attempt under our own pid
            await self._started(res, os.getpid(),
                                os.getpgrp() if os.name == "posix" else os.getpid(),
                                announce=False)
        res.exit_code = outcome.exit_code
        res.session_id = outcome.session_id or self.session_id
        res.output_limit_exceeded = outcome.output_limit_exceeded
        res.cancelled = self.cancelled
        res.oom_killed = self.oom_killed
        res.error = outcome.error
        if res.timed_out:
            res.error = f"timed out after {ctx.config.timeout_sec:g} s"
        elif res.oom_killed:
            res.error = self._memory_error()
        if res.output_limit_exceeded:
            self._log(outcome.error or "output limit exceeded")

        # A worker's run folder files land here before anything reads the folder.
        back = await session.finish() if session.remote and refused is None else None
        # Whatever the agent left in its folder (output.md, handoff.json, ...) is redacted
        # before anything reads it.
        await asyncio.to_thread(self.redactor.scrub_folder, folder)
        res.output_text, res.output_hash = await asyncio.to_thread(
            _output, folder, self.redactor.text(outcome.final_text))
        patch: bytes | None = None
        commit: dict[str, str] = {}
        if back is not None:
            patch = self._remote_change(res, back, folder)
        if tree is not None and start is not None:
            patch, commit = await self._commit(tree, start, res)
        elif back is None and git and before:
            after = await workspace_diff.snapshot(self.workspace)
            patch = await workspace_diff.diff(self.workspace, before, after) if after else b""
        if patch is not None:
            # before redaction: a secret the agent wrote into a file is named on the diff
            # artifact (its file and name, never its value), so applying the result refuses
            found = secret_scan.added_secrets(patch, self.redactor.names)
            patch = self.redactor.data(patch)
            await asyncio.to_thread(atomic_write_bytes, folder / af.DIFF, patch)
            if patch:
                res.diff_hash = hashlib.sha256(patch).hexdigest()
                secrets = {"secrets": [f.to_json() for f in found]} if found else {}
                self._artifact("diff", folder / af.DIFF, **commit, **secrets)
                if found:
                    self._log(secret_words.written_warning(found, commit.get("branch")))
                self._count_output_files(res, patch)
        await self._finish_info(res)
        ok = res.exit_code == 0 and not (res.timed_out or res.cancelled)
        self._bus("RUN_STOP" if ok else "RUN_CRASH",
                  f"agent run {agent_run_id} ended with exit code {res.exit_code}"
                  + (f": {res.error}" if res.error and not ok else ""), agent_run_id)
        lookup = ctx.bus_handoff
        res.handoff, problem, res.done = await asyncio.to_thread(
            _collect, folder, None if lookup else bus, bus_offset, agent_run_id)
        if problem:
            self._log(problem)
        if lookup is not None:  # the engine saw every bus post: no search through the log
            posted = await lookup(agent_run_id)
            if res.handoff is None and posted is not None:
                res.handoff = af.handoff_directive(
                    {"to": posted["handoffTo"], "message": posted.get("message", "")})
        return res

    async def _commit(self, tree: "NodeTree", start: str,
                      res: AgentRunResult) -> tuple[bytes, dict[str, str]]:
        """Commit the agent run's change on the node's branch: the patch from the turn's
        start to the commit, and the commit and branch for the diff artifact. A change git
        would not commit fails the agent run (``res.uncommitted``)."""
        merging = self.merging if self.merging is not None \
            and await isolation.merge_open(tree) else None
        try:
            commit = await isolation.commit_turn(self.ctx, tree, res.agent_run_id,
                                                 self.attempt, self.merging)
        except GitError as exc:
            # shown as done, the turn would hand on a branch without its work: it fails,
            # and its change waits in the worktree for the next turn's first commit
            res.uncommitted = True
            res.error = (f"the agent run's change could not be committed on {tree.branch}: "
                         f"{str(exc).rstrip('.')}. It stays in {tree.workdir}, uncommitted: "
                         "the node's next turn commits it first, once git can commit there")
            self._log(res.error)
            return b"", {}
        if commit is None:
            if self.merging is not None and await isolation.merge_open(tree):
                self._log(f"conflicts of the merge of {self.merging.conflict.source.branch} "
                          "are left (unmerged files or conflict markers); the merge stays "
                          "open")
            return b"", {}
        if merging is not None and not await isolation.merge_open(tree):
            self.emit(merge_gate.agent_merged(merging, tree.branch, commit))
        await isolation.record_ahead(tree, self.emit)
        patch = await workspace_diff.diff(self.workspace, start, commit)
        return patch, {"commit": commit, "branch": tree.branch}

    def _remote_change(self, res: AgentRunResult, back: executors.RemoteResult,
                       folder: Path) -> bytes:
        """The worker's patch, applied; one that no longer applies fails the agent run,
        keeping both changes (never merged)."""
        for problem in back.problems or []:
            self._log(f"worker: {problem}")
        if back.conflict is None:
            return back.patch
        res.exit_code = res.exit_code or 1
        res.error = (f"the agent's change no longer applies to {self.workspace} "
                     f"({back.conflict}): another turn changed it meanwhile. Both changes are "
                     f"kept: {executors.UNAPPLIED} (this turn) and {executors.CONCURRENT} "
                     "(the workspace since this turn started); retry the turn to redo it "
                     "on top")
        self._log(res.error)
        self._bus("ERROR", res.error, res.agent_run_id)
        for name in (executors.UNAPPLIED, executors.CONCURRENT):
            self._artifact("diff", folder / name)
        return b""

    # --- running ----------------------------------------------------------------

    async def _consume(self, provider: Provider, request: TurnRequest,
                       res: AgentRunResult) -> None:
        async def pump() -> None:
            emit_many = self.emit_many
            async for events in provider.stream(request):
                emit_many(events)

        self.task = task = asyncio.create_task(pump())
        timeout = self.ctx.config.timeout_sec
        try:
            done, _ = await asyncio.wait({task}, timeout=timeout)
        finally:
            if self._watch is not None:
                self._watch.cancel()
        if not done:
            res.timed_out = True
            self._log(f"timed out after {timeout:g} s; stopping the agent and its processes")
            await provider.cancel()
            await _wait_or_cancel(task, self.ctx.grace_sec + 5.0)
        elif not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            self._log(f"provider error: {type(exc).__name__}: {exc}")
            with contextlib.suppress(Exception):
                await provider.cancel()
        if self.cancelled and not task.done():
            await _wait_or_cancel(task, 1.0)

    def _count_output_files(self, res: AgentRunResult, patch: bytes) -> None:
        """The sandbox's maxOutputFiles, held against the files the diff shows changed."""
        box = self.ctx.config.sandbox
        limit = box.limits.max_output_files if box is not None else None
        changed = patch.count(b"\ndiff --git ") + patch.startswith(b"diff --git ")
        if limit is not None and changed > limit:
            res.output_limit_exceeded = True
            res.error = (f"the agent changed {plural(changed, 'file')}, more than the sandbox's "
                         f"maxOutputFiles ({limit})")
            self._log(res.error)

    def _memory_limit(self) -> int | None:
        box = self.ctx.config.sandbox
        mb = box.limits.max_memory_mb if box is not None else None
        return mb * 1024 * 1024 if mb is not None else None

    def _memory_error(self) -> str:
        box = self.ctx.config.sandbox
        assert box is not None
        return (f"killed: the agent's processes used more than maxMemoryMb "
                f"({box.limits.max_memory_mb} MB)")

    def _memory_exceeded(self, used: int) -> None:
        self.oom_killed = True
        self._log(f"{self._memory_error()}: {used / 1048576:.0f} MB resident; "
                  "stopping the agent and its processes")

    async def cancel(self) -> None:
        self.cancelled = True
        if self.provider is not None:
            await self.provider.cancel()
        if self.task is not None and not self.task.done():
            await _wait_or_cancel(self.task, self.ctx.grace_sec + 2.0)

    # --- run-info.yaml ------------------------------------------------------------

    def _started(self, res: AgentRunResult, pid: int, pgid: int,
                 announce: bool = True) -> "asyncio.Future[None]":
        """Record the spawn; the returned future is done once run-info.yaml is written and
        RUN_START is out (providers await it before reading the agent's output)."""
        ctx, folder = self.ctx, res.folder
        commandline = self.provider.outcome.commandline if self.provider else None
        limit = self._memory_limit()
        remote = self.session is not None and self.session.remote
        if announce and limit is not None and self._watch is None and not remote:
            self._watch = asyncio.ensure_future(
                memory_watch.watch(pid, pgid, limit, self._memory_exceeded))
        self.info = RunInfo(
            run_id=res.agent_run_id, project_id=ctx.project_id, task_id=ctx.task_id,
            parent_run_id=ctx.parent_agent_run_id or "", previous_run_id=self.previous_run_id or "",
            agent=str(ctx.node.provider), pid=pid, pgid=pgid, start_time=utc_now(),
            cwd=str(self.workspace), prompt_path=str(folder / af.PROMPT_MD),
            output_path=str(folder / af.OUTPUT), stdout_path=str(folder / af.STDOUT),
            stderr_path=str(folder / af.STDERR), backend_model=ctx.config.model,
            commandline=self.redactor.text(commandline) if commandline else None)
        # Shielded: a provider cancelled while it waits must not cancel the announcement.
        return asyncio.shield(self._announce(res, pid, pgid, announce))

    async def _announce(self, res: AgentRunResult, pid: int, pgid: int, announce: bool) -> None:
        await self._write_info(validate_at_creation, res.folder)
        if announce:
            # pid/pgid let a resumed engine end an agent group left behind by a crash.
            self._bus("RUN_START", f"agent run {res.agent_run_id} started (pid {pid})",
                      res.agent_run_id, pid=pid, pgid=pgid)

    async def _finish_info(self, res: AgentRunResult) -> None:
        assert self.info is not None
        end = utc_now()
        self.info = self.info.model_copy(update={
            "end_time": max(end, self.info.start_time), "exit_code": res.exit_code})
        await self._write_info(validate_at_completion, res.folder)
        await self._write_runner(res)

    async def _write_runner(self, res: AgentRunResult) -> None:
        """runner.json: how the agent ran; its hash goes on the artifact event."""
        info, ctx = self.info, self.ctx
        assert info is not None and self.launch is not None
        try:
            session = self.session
            seen = session.seen_env if session is not None and session.seen_env is not None \
                else self.launch.seen_env
            record = await asyncio.to_thread(
                runner_record.build_record, config=ctx.config, env=seen,
                host=session.facts if session is not None else None,
                agent_run_id=res.agent_run_id, started_at=info.start_time,
                completed_at=info.end_time, exit_code=res.exit_code, timed_out=res.timed_out,
                oom_killed=res.oom_killed, secret_patterns=user_patterns(ctx.data_dir))
            path = res.folder / RUNNER_JSON
            digest, problems = await asyncio.to_thread(runner_record.write_record, path, record)
        except (OSError, ValueError) as exc:
            self._log(f"{res.folder / RUNNER_JSON}: not written: {exc}")
            return
        if problems:
            self._log(f"{path}: " + "; ".join(problems))
        res.runner_hash = digest
        self._artifact("log", path, agentRunId=res.agent_run_id, runnerHash=digest,
                       sandbox=record["sandbox"]["backend"])

    async def _write_info(self, validate: Callable[[RunInfo], list[str]], folder: Path) -> None:
        info = self.info
        assert info is not None
        previous = self._info_write
        if previous is not None:  # the start's write lands first, whatever happened to it
            await asyncio.wait({previous})
        self._info_write = write = asyncio.ensure_future(
            asyncio.to_thread(_store_info, folder / af.RUN_INFO, info, validate))
        problems = await asyncio.shield(write)
        if problems:
            self._log(f"{folder / af.RUN_INFO}: " + "; ".join(problems))


def _unwrapped(argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """A remote agent is wrapped in its sandbox on the worker, with the worker's paths."""
    return list(argv), dict(env)


def _prepare_folder(folder: Path, blocks: list, redactor: Redactor) -> str:
    """The prompt files (redacted) and the empty output files; returns the prompt."""
    prompt = af.write_prompt(folder, blocks)
    if redactor:
        for name in (af.PROMPT_MD, af.PROMPT_FULL, af.PROMPT_BLOCKS):
            redactor.scrub_file(folder / name)
        prompt = redactor.text(prompt)
    for name in (af.STDOUT, af.STDERR):
        (folder / name).touch()
    return prompt


def _output(folder: Path, final_text: str) -> tuple[str, str]:
    """output.md guaranteed, and its text with its hash."""
    text = af.ensure_output(folder, final_text)
    return text, af.text_hash(text)


def _collect(folder: Path, bus: Path | None, bus_offset: int,
             agent_run_id: str) -> tuple[dict | list[dict] | None, str | None, bool]:
    """What the agent left: its handoff (handoff.json, else a bus post found in the log
    ``bus`` when given), a problem with handoff.json, and whether it wrote DONE."""
    handoff, problem = af.read_handoff(folder)
    if handoff is None and bus is not None:
        handoff = af.bus_handoff(bus, bus_offset, agent_run_id)
    return handoff, problem, (folder / af.DONE).exists()


def _store_info(path: Path, info: RunInfo, validate: Callable[[RunInfo], list[str]]) -> list[str]:
    """Check ``info`` and write it; the problems found (it is written anyway)."""
    problems = validate(info)
    write_run_info(path, info)
    return problems


async def _wait_or_cancel(task: asyncio.Task, timeout: float) -> None:
    """Wait for ``task`` up to ``timeout`` s, then cancel it."""
    done, _ = await asyncio.wait({task}, timeout=timeout)
    if not done:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
