"""ScriptedProvider: runs the scripted agent program and gates its tool calls."""

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson

from desktop.cli.self_launch import frozen, self_command
from desktop.contract.events import Resolution, ToolCall
from desktop.disk.atomic import atomic_write_json
from desktop.providers.base import TurnRequest
from desktop.providers.lines import log_event, parse_event_line
from desktop.providers.process_provider import ProcessProvider

# The folder holding the `desktop` package, so the agent can import it anywhere.
PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])
DEFAULT_SCRIPT = [{"say": "Nothing scripted for this node; the inbox was read."}]


class ScriptedProvider(ProcessProvider):
    """The built-in deterministic agent; a real child process (see scripted/agent.py)."""

    name = "scripted"
    can_gate = True
    keep_stdin_open = True  # stdin carries tool-call resolutions

    def __init__(self) -> None:
        super().__init__()
        self._last_text = ""

    def argv(self, request: TurnRequest) -> list[str]:
        return self_command("_scripted-agent")

    def prepare(self, request: TurnRequest) -> tuple[dict[str, str], bytes | None]:
        script_path = request.agent_run_dir / "script.json"
        inbox_path = request.agent_run_dir / "inbox.json"
        script = request.config.script if request.config.script is not None else DEFAULT_SCRIPT
        atomic_write_json(script_path, script)
        atomic_write_json(inbox_path, request.inbox)
        env = dict(request.env)
        if not frozen():  # `python -m desktop` must find the package from any folder
            paths = [PACKAGE_ROOT, *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
            env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        env["PYTHONIOENCODING"] = "utf-8"
        env["AGENT_CANVAS_SCRIPT"] = str(script_path)
        env["AGENT_CANVAS_INBOX"] = str(inbox_path)
        env.setdefault("AGENT_CANVAS_TURN", str(request.turn_number))
        env.setdefault("AGENT_CANVAS_ATTEMPT", "1")
        if request.config.model:
            env["AGENT_CANVAS_MODEL"] = request.config.model
        return env, None

    def line_events(self, request: TurnRequest, line: str) -> list[dict[str, Any]] | None:
        event, problem = parse_event_line(line)
        if event is None:
            return [log_event(problem or line, "stderr" if problem else "stdout")]
        if event["type"] == "tool.proposed":
            return None  # waits at the gate: handle_line
        if event["type"] == "message.assistant.final":
            self._last_text = str(event.get("text", ""))
        return [event]

    async def handle_line(self, request: TurnRequest, line: str) -> AsyncIterator[dict[str, Any]]:
        events = self.line_events(request, line)
        if events is not None:
            for event in events:
                yield event
            return
        event, _ = parse_event_line(line)
        assert event is not None
        yield event
        resolution = await self._ask(request, ToolCall.model_validate(event["tool"]))
        answer = {"status": resolution.status, "modifiedArgs": resolution.modified_args,
                  "reason": resolution.reason,
                  "result": (resolution.model_extra or {}).get("result")}
        if self.process is not None:
            await self.process.send_line(orjson.dumps(answer).decode())

    async def _ask(self, request: TurnRequest, tool: ToolCall) -> Resolution:
        context = self._last_text[:500] or None
        try:
            return await request.gate(tool, context)
        except Exception as exc:  # a broken gate must not run the tool
            return Resolution(status="denied", reason=f"approval failed: {exc}")
