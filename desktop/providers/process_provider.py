"""Shared skeleton of providers that run the agent as a local process."""

import abc
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

    def finish(self, request: TurnRequest) -> list[dict[str, Any]]:
        """Events to add once the agent has ended."""
        return []

    async def start(self, request: TurnRequest) -> AsyncIterator[dict[str, Any]]:
        argv = self.argv(request)
        env, stdin_data = self.prepare(request)
        self._outcome = TurnOutcome(exit_code=-1, session_id=request.session_id,
                                    commandline=shlex.join(argv))
        process = AgentProcess(
            argv, cwd=request.cwd, env=env,
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
            yield log_event(self._outcome.error, "stderr")
            return
        self.process = process
        self._outcome.pid, self._outcome.pgid = process.pid, process.pgid
        if request.on_start is not None and process.pid is not None:
            request.on_start(process.pid, process.pgid or process.pid)
        if self._cancelled:
            await process.terminate()
        try:
            async for stream, line in process.output():
                if stream == "stderr":
                    yield log_event(line, "stderr")
                    continue
                async for event in self.handle_line(request, line):
                    if event.get("type") == "message.assistant.final":
                        self.finals.append(str(event.get("text", "")))
                    yield event
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
        for event in self.finish(request):
            yield event

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
