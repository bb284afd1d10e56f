"""Shared skeleton of providers that run the agent as a local process."""

import abc
import inspect
import shlex
from collections.abc import AsyncIterator
from typing import Any

from desktop.providers.base import Provider, TurnOutcome, TurnRequest
from desktop.providers.lines import log_event
from desktop.providers.process import AgentProcess
from desktop.providers.redact import Redactor


class ProcessProvider(Provider):
    """Spawns :meth:`argv` under :class:`AgentProcess` and maps its lines to events."""

    keep_stdin_open = False

    def __init__(self) -> None:
        self.process: AgentProcess | None = None
        self._outcome = TurnOutcome(exit_code=-1)
        self._cancelled = False
        self.finals: list[str] = []

    @abc.abstractmethod
    def argv(self, request: TurnRequest) -> list[str]:
        """The command line of the agent."""

    def prepare(self, request: TurnRequest) -> tuple[dict[str, str], bytes | None]:
        """The agent's environment and what to write on its stdin (None: nothing)."""
        return dict(request.env), request.prompt.encode("utf-8")

    @abc.abstractmethod
    def handle_line(self, request: TurnRequest, line: str) -> AsyncIterator[dict[str, Any]]:
        """Events for one stdout line."""

    def line_events(self, request: TurnRequest, line: str) -> list[dict[str, Any]] | None:
        """Events for one stdout line without waiting for anything, or None when the line
        needs :meth:`handle_line` (which may await, e.g. a tool call at the gate)."""
        return None

    def finish(self, request: TurnRequest) -> list[dict[str, Any]]:
        """Events to add once the agent has ended."""
        return []

    async def start(self, request: TurnRequest) -> AsyncIterator[dict[str, Any]]:
        async for batch in self._batches(request):
            for event in batch:
                yield event

    async def stream(self, request: TurnRequest) -> AsyncIterator[list[dict[str, Any]]]:
        if type(self).start is not ProcessProvider.start:  # a subclass wraps start: honour it
            async for event in self.start(request):
                yield [event]
            return
        async for batch in self._batches(request):
            yield batch

    def begin(self, request: TurnRequest) -> list[dict[str, Any]] | None:
        """Checks before spawning: events that end the turn at once (the outcome set),
        or None to go on."""
        return None

    async def _batches(self, request: TurnRequest) -> AsyncIterator[list[dict[str, Any]]]:
        refused = self.begin(request)
        if refused is not None:
            yield refused
            return
        if self._cancelled:  # stopped before the spawn: spawn nothing
            self._outcome = TurnOutcome(exit_code=-1, error="the agent was stopped")
            return
        argv = self.argv(request)
        env, stdin_data = self.prepare(request)
        self._outcome = TurnOutcome(exit_code=-1, session_id=request.session_id,
                                    commandline=shlex.join(argv))
        spawn_argv, spawn_env = request.launch_command(argv, env)
        process = request.make_process(
            spawn_argv, cwd=request.cwd, env=spawn_env,
            stdout_path=request.stdout_path, stderr_path=request.stderr_path,
            stdin_data=stdin_data, keep_stdin_open=self.keep_stdin_open,
            max_output_bytes=request.max_output_bytes or request.config.limits.max_output_bytes,
            redactor=Redactor(request.secrets),
        )
        try:
            await process.start()
        except OSError as exc:
            self._outcome.exit_code = 127
            self._outcome.error = f"cannot start {argv[0]!r}: {exc.strerror or exc}"
            yield [log_event(self._outcome.error, "stderr")]
            return
        self.process = process
        self._outcome.pid, self._outcome.pgid = process.pid, process.pgid
        if request.on_start is not None and process.pid is not None:
            started = request.on_start(process.pid, process.pgid or process.pid)
            if inspect.isawaitable(started):
                await started
        if self._cancelled:
            await process.terminate()
        fast = self.line_events
        try:
            async for stream, lines in process.batches():
                if stream == "stderr":
                    yield [log_event(line, "stderr") for line in lines]
                    continue
                out: list[dict[str, Any]] = []
                for line in lines:
                    events = fast(request, line)
                    if events is not None:
                        out += events
                        continue
                    if out:  # what came before goes first, the slow line may wait
                        yield self._noted(out)
                        out = []
                    async for event in self.handle_line(request, line):
                        yield self._noted([event])
                if out:
                    yield self._noted(out)
        finally:
            if process.exit_code is None:  # the consumer stopped early: do not leak the group
                await process.terminate()
            code = await process.wait()
        self._outcome.exit_code = code
        self._outcome.final_text = "\n\n".join(t for t in self.finals if t)
        if process.output_limit_exceeded:
            self._outcome.output_limit_exceeded = True
            self._outcome.error = (f"output limit exceeded ({process.max_output_bytes} bytes); "
                                   "the agent was stopped")
        elif process.killed:
            self._outcome.error = "the agent was stopped"
        elif code != 0:
            tail = process.stderr_tail.strip().splitlines()
            self._outcome.error = f"exit code {code}" + (f": {tail[-1]}" if tail else "")
        finished = self.finish(request)
        if finished:
            yield finished

    def _noted(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``events``, with the text of any final message kept for the outcome."""
        for event in events:
            if event.get("type") == "message.assistant.final":
                self.finals.append(str(event.get("text", "")))
        return events

    async def cancel(self) -> None:
        self._cancelled = True
        if self.process is not None:
            await self.process.terminate()

    @property
    def outcome(self) -> TurnOutcome:
        return self._outcome

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None
