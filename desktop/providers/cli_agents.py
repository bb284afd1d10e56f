"""Claude Code, Codex and Gemini CLI as providers: launch, parse the stream, resume sessions.

Each runs its CLI with the command pattern of specs/agent-protocol-governance.md
(skip mode: the agent's own permission prompts are bypassed), adds the node's
``model`` and extra ``args``, resumes the node's session on later turns, and
turns the JSON-lines stream into contract events with the parsers in
``desktop.providers.parsers``. A session is not resumed when the node's inbox
holds one of its reset commands (``/new``, ``/clear``) or the session was reset.

Gating (``cliPermissionsMode: gated``): Claude Code can gate — it runs in its
default permission mode with ``--permission-prompt-tool`` pointing at the MCP
server of ``desktop.providers.gating.mcp_server``, which asks the turn's gate
(the approval broker) through :class:`ApprovalBridge`: allow, deny or allow
with modified input. Codex and Gemini CLI in their exec modes cannot hold a
tool call; a gated node on them is a validation error (``can_gate`` is False)
and, if one reaches a turn anyway, the turn fails rather than running the
tools unapproved.
"""

import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from desktop.cli.self_launch import self_command
from desktop.providers.base import TurnRequest
from desktop.providers.gating.bridge import SOCKET_ENV, ApprovalBridge
from desktop.providers.lines import log_event
from desktop.providers.offline import OfflineSetup, default_model
from desktop.providers.parsers import parser_for
from desktop.providers.parsers.common import StreamParser
from desktop.providers.process_provider import ProcessProvider

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
MAX_ARGV_PROMPT = 100_000
"""Longest prompt Gemini CLI gets as an argument; a longer one goes on stdin."""


def wants_reset(request: TurnRequest) -> bool:
    """Whether this turn starts a fresh session (a reset command is in the inbox)."""
    commands = {c.strip() for c in request.node.session.reset_commands if c.strip()}
    return any(str(item.get("text", "")).strip() in commands for item in request.inbox)


def resume_id(request: TurnRequest) -> str | None:
    """The session to resume this turn, or None for a fresh one."""
    if wants_reset(request):
        return None
    return request.session_id or request.node.session.session_id


class CliAgentProvider(ProcessProvider):
    """Common part of the three CLI agents."""

    binary = ""

    def __init__(self, offline: OfflineSetup | None = None, bin_dir: Path | None = None):
        super().__init__()
        self.offline = offline
        self.bin_dir = bin_dir
        self.parser: StreamParser = parser_for(self.name)
        self.bridge: ApprovalBridge | None = None

    # --- what subclasses give -------------------------------------------------------

    def agent_args(self, request: TurnRequest, model: str | None,
                   session: str | None) -> list[str]:
        raise NotImplementedError

    def gating_args(self, request: TurnRequest) -> list[str]:
        """Extra arguments when the node is gated (only gating providers override)."""
        return []

    # --- ProcessProvider ---------------------------------------------------------------

    def executable(self, env: dict[str, str]) -> str:
        """The CLI to run: the node's ``command``, the bin folder, else PATH."""
        if self.bin_dir is not None and (self.bin_dir / self.binary).exists():
            return str(self.bin_dir / self.binary)
        return shutil.which(self.binary, path=env.get("PATH")) or self.binary

    def model(self, request: TurnRequest) -> str | None:
        if request.config.model:
            return request.config.model
        return default_model(self.name) if self.offline is not None else None

    def argv(self, request: TurnRequest) -> list[str]:
        env, _ = self.prepare(request)
        command = request.config.command or self.executable(env)
        return [command, *self.agent_args(request, self.model(request), resume_id(request)),
                *self.gating_args(request), *request.config.args]

    def prepare(self, request: TurnRequest) -> tuple[dict[str, str], bytes | None]:
        env = dict(request.env)
        if self.offline is not None:
            env.update(self.offline.env_for(self.name, request.node.key))
        return env, request.prompt.encode("utf-8")

    async def start(self, request: TurnRequest) -> AsyncIterator[dict[str, Any]]:
        self.parser = parser_for(self.name, run_id=request.run_id,
                                 started_on_proposal=not self.gated(request))
        if self.gated(request) and not self.can_gate:
            self._outcome.exit_code = 2
            self._outcome.error = (f"node {request.node.label!r} is gated but provider "
                                   f"{self.name!r} cannot hold tool calls for approval; use "
                                   "claude-gated or acp, or set cliPermissionsMode: skip")
            yield log_event(self._outcome.error, "stderr")
            return
        self.bridge = None
        if self.gated(request):
            self.bridge = await ApprovalBridge(request.gate, f"{self.name} permission request"
                                               ).start()
        try:
            async for event in super().start(request):
                yield event
        finally:
            if self.bridge is not None:
                await self.bridge.stop()

    @staticmethod
    def gated(request: TurnRequest) -> bool:
        return str(request.node.permissions.cli_permissions_mode) == "gated"

    async def handle_line(self, request: TurnRequest, line: str) -> AsyncIterator[dict[str, Any]]:
        if self.bridge is not None:  # approved tools have started by the time output follows
            for tool_id in self.bridge.take_approved():
                yield {"type": "tool.started", "toolId": tool_id}
        for event in self.parser.feed(line):
            yield self._localize(request, event)

    def _localize(self, request: TurnRequest, event: dict[str, Any]) -> dict[str, Any]:
        """Give file artifacts the node id and an absolute path in the workspace."""
        if event.get("type") == "artifact.created":
            artifact = dict(event["artifact"])
            path = Path(artifact["path"])
            artifact["path"] = str(path if path.is_absolute() else request.cwd / path)
            artifact["nodeId"] = request.node.id
            return {**event, "artifact": artifact}
        return event

    def finish(self, request: TurnRequest) -> list[dict[str, Any]]:
        events = [self._localize(request, e) for e in self.parser.finish()]
        outcome = self._outcome
        if self.parser.final_text:
            outcome.final_text = self.parser.final_text
        if self.parser.session_id:
            outcome.session_id = self.parser.session_id
        elif wants_reset(request):
            outcome.session_id = None
        error = self.parser.error
        if error is not None:
            outcome.error = f"{error['category']}: {error['message']}"
            if outcome.exit_code == 0:
                outcome.exit_code = 1  # the agent said it failed, whatever its exit code
        return events


class ClaudeProvider(CliAgentProvider):
    """``claude -p --output-format stream-json`` in bypassPermissions mode."""

    name = "claude"
    binary = "claude"
    can_gate = True

    def agent_args(self, request: TurnRequest, model: str | None,
                   session: str | None) -> list[str]:
        args = ["-p", "--input-format", "text", "--output-format", "stream-json", "--verbose",
                "--include-partial-messages", "--tools", "default"]
        args += self.permission_args(request)
        if model:
            args += ["--model", model]
        if session:
            args += ["--resume", session]
        return args

    def permission_args(self, request: TurnRequest) -> list[str]:
        if not self.gated(request):
            return ["--permission-mode", "bypassPermissions"]
        from desktop.providers.gating import mcp_server

        server = self_command("_gating-mcp-server")
        config = {"mcpServers": {mcp_server.SERVER_NAME: {
            "type": "stdio", "command": server[0], "args": server[1:],
            "env": {"PYTHONPATH": PACKAGE_ROOT,
                    SOCKET_ENV: str(self.bridge.path) if self.bridge else ""}}}}
        return ["--permission-mode", "default", "--mcp-config", json.dumps(config),
                "--permission-prompt-tool", mcp_server.PERMISSION_TOOL]

    def prepare(self, request: TurnRequest) -> tuple[dict[str, str], bytes | None]:
        env, stdin = super().prepare(request)
        if self.gated(request):
            # Connect the permission tool before the first model call, not in the background.
            env["MCP_CONNECTION_NONBLOCKING"] = "0"
        elif hasattr(os, "geteuid") and os.geteuid() == 0:
            # Claude Code refuses bypassPermissions as root unless told it is sandboxed.
            env.setdefault("IS_SANDBOX", "1")
        return env, stdin


class CodexProvider(CliAgentProvider):
    """``codex exec --json`` with approvals and sandbox bypassed; ``exec resume`` later."""

    name = "codex"
    binary = "codex"

    def agent_args(self, request: TurnRequest, model: str | None,
                   session: str | None) -> list[str]:
        args = ["exec"]
        if session:
            args += ["resume", "--dangerously-bypass-approvals-and-sandbox", "--json",
                     "--skip-git-repo-check"]
        else:
            args += ["--dangerously-bypass-approvals-and-sandbox", "--json",
                     "--skip-git-repo-check"]
        if model:
            args += ["--model", model]
        if session:
            args.append(session)
        return [*args, "-"]


class GeminiProvider(CliAgentProvider):
    """``gemini --approval-mode yolo --output-format stream-json``; ``--resume`` later."""

    name = "gemini"
    binary = "gemini"

    def agent_args(self, request: TurnRequest, model: str | None,
                   session: str | None) -> list[str]:
        args = ["--screen-reader", "true", "--approval-mode", "yolo",
                "--output-format", "stream-json"]
        if model:
            args += ["--model", model]
        if session:
            args += ["--resume", session]
        prompt = request.prompt if len(request.prompt) <= MAX_ARGV_PROMPT else ""
        return [*args, "--prompt", prompt]

    def prepare(self, request: TurnRequest) -> tuple[dict[str, str], bytes | None]:
        env, _ = super().prepare(request)
        if len(request.prompt) <= MAX_ARGV_PROMPT:
            return env, None
        return env, request.prompt.encode("utf-8")
