"""The provider side of gated approvals: a unix socket that asks the turn's gate.

An agent's permission hook (the MCP permission tool of Claude Code) connects,
sends one JSON line ``{"tool_name", "input", "tool_use_id"}`` and gets back one
line in Claude Code's permission-tool format: ``{"behavior": "allow",
"updatedInput": {...}}`` or ``{"behavior": "deny", "message": "..."}``. The
socket lives in a private temp folder (mode 0700), so no token is needed.
"""

import asyncio
import contextlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from desktop.contract.events import ToolCall
from desktop.disk.safe_json import loads as safe_loads
from desktop.providers.base import Gate

SOCKET_ENV = "AGENT_CANVAS_APPROVAL_SOCKET"


def permission_reply(status: str, tool_input: dict[str, Any],
                     modified: dict[str, Any] | None, reason: str | None) -> dict[str, Any]:
    """Claude Code's permission-tool answer for a resolution."""
    if status == "denied":
        return {"behavior": "deny", "message": reason or "denied by the user"}
    if status == "modified" and modified is not None:
        return {"behavior": "allow", "updatedInput": modified}
    return {"behavior": "allow", "updatedInput": tool_input}


class ApprovalBridge:
    """Serves approval questions from the agent's permission hook to ``gate``."""

    def __init__(self, gate: Gate, context: str | None = None):
        self.gate = gate
        self.context = context
        self.folder = Path(tempfile.mkdtemp(prefix="ac-gate-"))
        self.path = self.folder / "gate.sock"
        self.approved: list[str] = []
        self.decisions: list[dict[str, Any]] = []
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> "ApprovalBridge":
        self.folder.chmod(0o700)
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.path))
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        shutil.rmtree(self.folder, ignore_errors=True)

    def take_approved(self) -> list[str]:
        """Tool ids approved since the last call (their ``tool.started`` is due)."""
        ids, self.approved = self.approved, []
        return ids

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            reply = await self.decide(line)
            writer.write(json.dumps(reply).encode() + b"\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def decide(self, line: bytes) -> dict[str, Any]:
        """The permission answer for one question line (a bad line is denied)."""
        try:
            question = safe_loads(line)
            name = str(question["tool_name"])
            tool_input = question.get("input") or {}
            tool_id = str(question.get("tool_use_id") or "")
        except (ValueError, KeyError, TypeError):
            return {"behavior": "deny", "message": "malformed permission request"}
        if not isinstance(tool_input, dict):
            tool_input = {"input": tool_input}
        tool = ToolCall(id=tool_id or name, name=name, args=tool_input)
        try:
            resolution = await self.gate(tool, self.context)
        except Exception as exc:  # the run is stopping: never allow by accident
            return {"behavior": "deny", "message": f"approval failed: {exc}"}
        status = str(resolution.status)
        if status != "denied":
            self.approved.append(tool.id)
        self.decisions.append({"toolId": tool.id, "status": status})
        return permission_reply(status, tool_input, resolution.modified_args, resolution.reason)
