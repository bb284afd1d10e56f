"""CommandProvider: any program that reads the prompt on stdin and prints its answer."""

import shlex
from collections.abc import AsyncIterator
from typing import Any

from desktop.providers.base import TurnRequest
from desktop.providers.lines import log_event, parse_event_line
from desktop.providers.process_provider import ProcessProvider


def command_argv(command: str | None, args: list[str]) -> list[str]:
    """``command`` + ``args``; a command with spaces and no args is split like a shell."""
    if not command:
        raise ValueError("the node has no command; set nodeConfigs.<node>.command")
    if not args and " " in command.strip():
        return shlex.split(command)
    return [command, *args]


class CommandProvider(ProcessProvider):
    """Each stdout line is streamed as a message delta; contract-event lines pass through."""

    name = "command"
    can_gate = False

    def __init__(self) -> None:
        super().__init__()
        self._text: list[str] = []
        self._saw_final = False

    def argv(self, request: TurnRequest) -> list[str]:
        return command_argv(request.config.command, list(request.config.args))

    def begin(self, request: TurnRequest) -> list[dict[str, Any]] | None:
        try:
            self.argv(request)
        except ValueError as exc:
            self._outcome.exit_code = 2
            self._outcome.error = str(exc)
            return [log_event(str(exc), "stderr")]
        return None

    def line_events(self, request: TurnRequest, line: str) -> list[dict[str, Any]]:
        event, problem = parse_event_line(line)
        if problem:
            return [log_event(problem, "stderr")]
        if event is not None:
            self._saw_final |= event["type"] == "message.assistant.final"
            return [event]
        self._text.append(line)
        return [{"type": "message.assistant.delta", "text": line + "\n"}]

    async def handle_line(self, request: TurnRequest, line: str) -> AsyncIterator[dict[str, Any]]:
        for event in self.line_events(request, line):
            yield event

    def finish(self, request: TurnRequest) -> list[dict[str, Any]]:
        if self._saw_final or not self._text:
            return []
        text = "\n".join(self._text)
        self.finals.append(text)
        self._outcome.final_text = "\n\n".join(t for t in self.finals if t)
        return [{"type": "message.assistant.final", "text": text}]
