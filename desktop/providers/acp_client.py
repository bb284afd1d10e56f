"""The client side of an ACP session: the JSON-RPC stream over the agent process,
permission requests answered by the turn's gate, and file access kept inside the workspace.

:class:`ProcessTransport` moves JSON-RPC messages over the stdin/stdout of an
:class:`~desktop.providers.process.AgentProcess` (so the process group, the
output files and the output limit are the project's own supervision). Every
incoming message is first shown to ``tap`` as it arrived, before the ``acp``
library validates it, so an update kind the library does not know still
becomes an event. Lines that are not JSON-RPC and stderr lines become ``node.log``.

Permission: ACP options carry no way to change a call's arguments, so a
``modified`` resolution is answered with ``allow_once`` for the original call
and a ``node.log`` note saying so.
"""

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from desktop.contract.events import ToolCall
from desktop.disk.atomic import atomic_write_text
from desktop.disk.safe_json import loads as safe_loads
from desktop.providers.acp_mapping import AcpMapper, tool_args, tool_name
from desktop.providers.base import Gate
from desktop.providers.lines import log_event
from desktop.providers.process import AgentProcess

Emit = Callable[[dict[str, Any]], None]
MODIFIED_NOTE = ("the approval modified the tool's arguments, which ACP cannot pass to the "
                 "agent; the original call was allowed")


class ProcessTransport:
    """An ``acp`` message transport over an agent process's stdin and stdout."""

    def __init__(self, process: AgentProcess, emit: Emit,
                 tap: Callable[[dict[str, Any]], None]):
        self.process = process
        self.emit = emit
        self.tap = tap
        self._output: AsyncIterator[tuple[str, str]] = process.output()

    async def send(self, message: dict[str, Any]) -> None:
        if not await self.process.send_line(json.dumps(message, ensure_ascii=False)):
            raise ConnectionError("the agent is no longer reading its input")

    async def receive(self) -> dict[str, Any] | None:
        async for stream, line in self._output:
            if stream == "stderr":
                self.emit(log_event(line, "stderr"))
                continue
            message = _json_object(line)
            if message is None or message.get("jsonrpc") != "2.0":
                if line.strip():
                    self.emit({**log_event(line), "problem": "not-json-rpc"})
                continue
            self.tap(message)
            return message
        return None

    async def close(self) -> None:
        await self.process.close_stdin()


def _json_object(line: str) -> dict[str, Any] | None:
    try:
        value = safe_loads(line, lenient=True)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def pick_option(options: list[PermissionOption], allow: bool) -> str | None:
    """The option to answer with: allow_once / reject_once first, then the *_always kind."""
    wanted = ("allow_once", "allow_always") if allow else ("reject_once", "reject_always")
    for kind in wanted:
        for option in options:
            if option.kind == kind:
                return option.option_id
    return None


class WorkspaceClient:
    """The ``acp`` Client: permission via the gate, text files inside ``workspace``."""

    def __init__(self, gate: Gate, mapper: AcpMapper, emit: Emit, workspace: Path,
                 context: str):
        self.gate = gate
        self.mapper = mapper
        self.emit = emit
        self.workspace = workspace.resolve()
        self.context = context
        self.decisions: list[dict[str, str]] = []

    # --- permission -----------------------------------------------------------------

    async def request_permission(self, session_id: str, tool_call: ToolCallUpdate,
                                 options: list[PermissionOption],
                                 **kwargs: Any) -> RequestPermissionResponse:
        raw = tool_call.model_dump(mode="json", by_alias=True, exclude_none=True)
        tool = ToolCall(id=tool_call.tool_call_id, name=tool_name(raw), args=tool_args(raw))
        try:
            resolution = await self.gate(tool, self.context)
            status = str(resolution.status)
            reason = resolution.reason
        except Exception as exc:  # the run is stopping: never allow by accident
            status, reason = "denied", f"approval failed: {exc}"
        allowed = status != "denied"
        if status == "modified":
            self.emit({"type": "node.log", "stream": "stderr",
                       "text": f"tool {tool.id}: {MODIFIED_NOTE}"})
        self.decisions.append({"toolId": tool.id, "status": status})
        option = pick_option(options, allowed)
        for event in self.mapper.permission_decided(tool.id, allowed and option is not None):
            self.emit(event)
        if option is None:
            if not allowed and reason:
                self.emit({"type": "node.log", "stream": "stderr",
                           "text": f"tool {tool.id} denied: {reason}"})
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        """Updates are mapped from the raw stream (see :class:`ProcessTransport`)."""

    # --- files ------------------------------------------------------------------------

    def inside(self, path: str) -> Path:
        """``path`` resolved; RequestError when it lies outside the workspace."""
        candidate = Path(path)
        if not candidate.is_absolute():
            candidate = self.workspace / candidate
        resolved = candidate.resolve()
        if not resolved.is_relative_to(self.workspace):
            raise RequestError.invalid_params(
                {"path": path, "reason": f"outside the workspace {self.workspace}"})
        return resolved

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        target = self.inside(path)
        if not target.is_file():
            raise RequestError.resource_not_found(str(target))
        text = target.read_text(encoding="utf-8", errors="replace")
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            end = start + limit if limit is not None else None
            text = "".join(lines[start:end])
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> WriteTextFileResponse:
        target = self.inside(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, content)
        return WriteTextFileResponse()
