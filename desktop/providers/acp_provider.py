"""Any agent that speaks ACP (Agent Client Protocol) as the ``acp`` provider.

The node's ``command`` picks the agent: a preset name (``gemini`` — Gemini
CLI's ``--acp`` mode, the default; ``claude`` — the ``claude-agent-acp``
adapter of ``@agentclientprotocol/claude-agent-acp``; ``claude-code-acp`` —
the older ``@zed-industries/claude-code-acp``; ``codex`` — ``codex-acp`` of
``@zed-industries/codex-acp``) or a full command line; the node's ``model``
and ``args`` follow (:mod:`desktop.providers.acp_presets`).

One turn: spawn the agent in its own process group (stdin/stdout carry the
JSON-RPC stream, stderr goes to agent-stderr.txt), ``initialize``,
``session/load`` of the node's session when the agent can load sessions (else
``session/new`` in the workspace), then ``session/prompt`` with the turn's
prompt. Updates become contract events (:mod:`desktop.providers.acp_mapping`);
``session/request_permission`` asks the turn's gate, so every tool call the
agent asks about is approved, denied or held by the approval broker. File
reads and writes are served inside the workspace only; no terminal is offered.
Cancel sends ``session/cancel`` and ends the process group.
"""

import asyncio
import contextlib
import inspect
import re
import shlex
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, connect_to_agent
from acp.client.connection import ClientSideConnection
from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation, TextContentBlock

from desktop.disk.atomic import atomic_write_text
from desktop.providers.acp_client import ProcessTransport, WorkspaceClient
from desktop.providers.acp_mapping import AcpMapper
from desktop.providers.acp_presets import (
    agent_family,
    command_words,
    family_args,
    family_env,
)
from desktop.providers.base import Provider, TurnOutcome, TurnRequest
from desktop.providers.cli_agents import resume_id
from desktop.providers.lines import log_event
from desktop.providers.offline import OfflineSetup, default_model
from desktop.providers.parsers.common import classify_error
from desktop.providers.process import AgentProcess
from desktop.providers.redact import Redactor

DIFF_FOLDER = "acp-diffs"
REPLAY_BARRIER = "agent-canvas/replayed"
"""Extension request (sent as ``_agent-canvas/replayed``) after ``session/load``."""
BARRIER_WAIT = 10.0
"""Seconds to wait for its answer from an agent that drops unknown requests."""
_END = object()


async def _replayed(conn: ClientSideConnection) -> None:
    """Return once the agent has sent the rest of a loaded session's replay.

    ACP asks an agent to replay the history before it answers ``session/load``, but
    Gemini CLI answers first and streams the replay after its answer (it does not await
    it). Its replay is written before it reads its next request, so the answer to one
    more request marks the replay's end in the stream: an extension request, which an
    agent that does not know it answers with "method not found".
    """
    with contextlib.suppress(RequestError, TimeoutError):
        await asyncio.wait_for(conn.ext_method(REPLAY_BARRIER, {}), BARRIER_WAIT)


class AcpProvider(Provider):
    """An ACP agent for one turn, with permission requests answered by the gate."""

    name = "acp"
    can_gate = True

    def __init__(self, offline: OfflineSetup | None = None, bin_dir: Path | None = None):
        self.offline = offline
        self.bin_dir = bin_dir
        self.process: AgentProcess | None = None
        self.conn: ClientSideConnection | None = None
        self.session_id: str | None = None
        self.mapper = AcpMapper()
        self.client: WorkspaceClient | None = None
        self._outcome = TurnOutcome(exit_code=-1)
        self._cancelled = False
        self._queue: asyncio.Queue[Any] = asyncio.Queue()

    # --- command line -----------------------------------------------------------------

    def argv(self, request: TurnRequest, env: dict[str, str]) -> list[str]:
        """The preset or the node's command line, then the model and the node's args."""
        words = command_words(request.config.command)
        words[0] = self._executable(words[0], env)
        family = agent_family(words[0])
        return [*words, *family_args(family, self.model(request, family), request.config.args),
                *request.config.args]

    def model(self, request: TurnRequest, family: str | None) -> str | None:
        """The node's model, else the rehearsal default for the family when offline."""
        if request.config.model:
            return request.config.model
        return default_model(family) if self.offline is not None and family else None

    def _executable(self, binary: str, env: dict[str, str]) -> str:
        if "/" in binary:
            return binary
        if self.bin_dir is not None and (self.bin_dir / binary).exists():
            return str(self.bin_dir / binary)
        return shutil.which(binary, path=env.get("PATH")) or binary

    def environment(self, request: TurnRequest) -> dict[str, str]:
        """The turn's env, aimed at the offline server if any, with the model if env-borne."""
        env = dict(request.env)
        family = agent_family(command_words(request.config.command)[0])
        if self.offline is not None and family:
            env.update(self.offline.env_for(family, request.node.key))
        env.update(family_env(family, self.model(request, family)))
        return env

    # --- the turn -----------------------------------------------------------------------

    async def start(self, request: TurnRequest) -> AsyncIterator[dict[str, Any]]:
        env = self.environment(request)
        argv = self.argv(request, env)
        self._outcome = TurnOutcome(exit_code=-1, session_id=request.session_id,
                                    commandline=shlex.join(argv))
        spawn_argv, spawn_env = request.launch_command(argv, env)
        process = AgentProcess(
            spawn_argv, cwd=request.cwd, env=spawn_env, stdout_path=request.stdout_path,
            stderr_path=request.stderr_path, keep_stdin_open=True,
            max_output_bytes=request.max_output_bytes or request.config.limits.max_output_bytes,
            redactor=Redactor(request.secrets))
        try:
            await process.start()
        except OSError as exc:
            self._outcome.exit_code = 127
            self._outcome.error = f"cannot start {argv[0]!r}: {exc.strerror or exc}"
            yield log_event(self._outcome.error, "stderr")
            return
        self.process = process
        self._outcome.pid, self._outcome.pgid = process.pid, process.pgid
        if request.on_start is not None and process.pid is not None:
            started = request.on_start(process.pid, process.pgid or process.pid)
            if inspect.isawaitable(started):
                await started
        if self._cancelled:
            await process.terminate()
        session = asyncio.create_task(self._run_session(request, process))
        try:
            while True:
                event = await self._queue.get()
                if event is _END:
                    break
                yield event
        finally:
            if not session.done():  # the consumer stopped early: do not leak the group
                await process.terminate()
                session.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await session
            code = await process.wait()
        self._settle(process, code)
        while not self._queue.empty():
            event = self._queue.get_nowait()
            if event is not _END:
                yield event

    async def _run_session(self, request: TurnRequest, process: AgentProcess) -> None:
        emit = self._queue.put_nowait
        self.mapper = mapper = AcpMapper(request.run_id, self._diff_writer(request),
                                         request.node.id)
        self.client = WorkspaceClient(request.gate, mapper, emit, request.cwd,
                                      f"{request.node.label} (acp) permission request")

        def tap(message: dict[str, Any]) -> None:
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            if message.get("method") == "session/update":
                for event in mapper.update(params.get("update")):
                    emit(event)
            elif message.get("method") == "session/request_permission":
                for event in mapper.permission_asked(params.get("toolCall")):
                    emit(event)

        self.conn = connect_to_agent(self.client, ProcessTransport(process, emit, tap))
        try:
            await self._converse(request, self.conn, mapper)
        except RequestError as exc:
            self._fail(f"{exc}" + (f": {exc.data}" if exc.data else ""),
                       "authentication" if exc.code == -32000 else None)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            self._fail(f"the agent ended the connection before the turn finished ({exc})",
                       "other")
        except Exception as exc:  # a malformed answer from the agent
            self._fail(f"ACP session failed: {type(exc).__name__}: {exc}", "other")
        finally:
            for event in mapper.finish():
                emit(event)
            with contextlib.suppress(Exception):
                await self.conn.close()
            await process.close_stdin()
            await process.terminate(grace=2.0)
            emit(_END)

    async def _converse(self, request: TurnRequest, conn: ClientSideConnection,
                        mapper: AcpMapper) -> None:
        emit = self._queue.put_nowait
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                terminal=False),
            client_info=Implementation(name="agent-canvas", version="0.1.0"))
        cwd = str(request.cwd.resolve())
        wanted = resume_id(request)
        session = None
        can_load = bool(init.agent_capabilities and init.agent_capabilities.load_session)
        if wanted and can_load:
            mapper.muted = True  # the agent replays the session's history as updates
            try:
                await conn.load_session(cwd=cwd, session_id=wanted, mcp_servers=[])
                session = wanted
                await _replayed(conn)
            except RequestError as exc:
                detail = f" {exc.data}" if exc.data else ""
                emit(log_event(f"cannot load session {wanted}: {exc}{detail}; "
                               "starting a new one", "stderr"))
            finally:
                mapper.muted = False
        elif wanted:
            emit(log_event("the agent cannot load sessions; starting a new one", "stderr"))
        if session is None:
            session = (await conn.new_session(cwd=cwd, mcp_servers=[])).session_id
        self.session_id = self._outcome.session_id = session
        emit({"type": "node.patch", "patch": {"session": {"sessionId": session}}})
        if self._cancelled:
            return
        response = await conn.prompt(
            session_id=session, prompt=[TextContentBlock(type="text", text=request.prompt)])
        for event in mapper.finish():
            emit(event)
        for event in mapper.usage(response.model_dump(mode="json", by_alias=True)):
            emit(event)
        self._stop_reason(str(response.stop_reason))

    def _stop_reason(self, reason: str) -> None:
        if reason == "end_turn":
            self._outcome.exit_code = 0
        elif reason in ("max_tokens", "max_turn_requests"):
            self._outcome.exit_code = 0
            self._queue.put_nowait(log_event(f"the agent stopped early: {reason}", "stderr"))
        elif reason == "cancelled" and not self._cancelled and self._denied():
            # Codex answers a rejected command by ending its turn to wait for instructions;
            # the denial was the user's choice, so the turn ends normally.
            self._outcome.exit_code = 0
            self._queue.put_nowait(log_event(
                "the agent ended its turn after a denied tool call; send it a message to go on",
                "stderr"))
        elif reason == "cancelled":
            self._outcome.exit_code = 1
            self._outcome.error = "the agent was stopped"
        else:
            self._fail(f"the agent ended the turn: {reason}", "other")

    def _denied(self) -> bool:
        return self.client is not None and any(
            d["status"] == "denied" for d in self.client.decisions)

    def _fail(self, message: str, category: str | None) -> None:
        kind = category or classify_error(message)
        self._outcome.exit_code = 1
        self._outcome.error = f"{kind}: {message}"
        self._queue.put_nowait({"type": "agent.error", "fatal": True, "category": kind,
                                "message": message[:4000]})

    def _settle(self, process: AgentProcess, code: int) -> None:
        """The outcome once the process group is gone."""
        outcome = self._outcome
        outcome.final_text = self.mapper.final_text
        if process.output_limit_exceeded:
            outcome.output_limit_exceeded = True
            outcome.exit_code = code if code != 0 else 1
            outcome.error = (f"output limit exceeded ({process.max_output_bytes} bytes); "
                             "the agent was stopped")
        elif self._cancelled:
            outcome.exit_code = outcome.exit_code if outcome.exit_code > 0 else 1
            outcome.error = "the agent was stopped"
        elif outcome.exit_code < 0:  # the session ended without a prompt result
            outcome.exit_code = code if code > 0 else 1
            tail = process.stderr_tail.strip().splitlines()
            outcome.error = outcome.error or (f"exit code {code}"
                                              + (f": {tail[-1]}" if tail else ""))

    def _diff_writer(self, request: TurnRequest):
        folder = request.agent_run_dir
        run_dir = folder.parent.parent
        count = 0

        def write(path: str, patch: str, tool_id: str) -> str | None:
            nonlocal count
            count += 1
            safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(path).name)[:80] or "file"
            target = folder / DIFF_FOLDER / f"{count:03d}-{safe}.patch"
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(target, patch)
            except OSError:
                return None
            return target.relative_to(run_dir).as_posix()

        return write

    # --- Provider -------------------------------------------------------------------------

    async def cancel(self) -> None:
        self._cancelled = True
        if self.conn is not None and self.session_id is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.conn.cancel(session_id=self.session_id), 1.0)
        if self.process is not None:
            await self.process.terminate()

    @property
    def outcome(self) -> TurnOutcome:
        return self._outcome

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None
