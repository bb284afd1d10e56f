"""The provider interface: start a turn, stream contract events, cancel, resume.

A provider launches one agent process for one turn. Events it yields are
partial contract events: a dict with ``type`` and that type's fields, without
``id``/``runId``/``ts``/``nodeId``/``seq`` (the engine adds those). Tool calls
pass through ``TurnRequest.gate`` before they run, so approvals, the command
blocklist and PLANNING mode apply to every provider alike.
"""

import abc
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.contract.events import Resolution, ToolCall
from desktop.contract.state import NodeConfig, NodeState

Gate = Callable[[ToolCall, str | None], Awaitable[Resolution]]
"""Ask whether a tool call may run: ``await gate(tool, context)``."""


@dataclass
class TurnRequest:
    """Everything a provider needs to run one turn of one node."""

    run_id: str
    node: NodeState
    config: NodeConfig
    agent_run_id: str
    agent_run_dir: Path
    prompt: str
    env: Mapping[str, str]
    cwd: Path
    turn_number: int
    gate: Gate
    inbox: list[dict[str, Any]] = field(default_factory=list)
    session_id: str | None = None
    stdout_path: Path | None = None
    stderr_path: Path | None = None
    on_start: Callable[[int, int], Awaitable[None] | None] | None = None
    """Called with (pid, pgid) right after the agent process is spawned; when it returns an
    awaitable, the provider awaits it before handing on any of the agent's output."""
    max_output_bytes: int | None = None
    """Stop the agent when its stdout+stderr exceed this many bytes."""
    secrets: list[str] = field(default_factory=list)
    """Values to redact from the agent's output before it is stored or emitted."""
    launch: Callable[[list[str], dict[str, str]], tuple[list[str], dict[str, str]]] | None = None
    """Wraps the agent's command line and environment in the node's sandbox."""
    spawn: Callable[..., Any] | None = None
    """Makes the agent's process (AgentProcess's arguments): where the node's executor runs
    it. None: an AgentProcess on this machine."""

    def make_process(self, argv: list[str], **kwargs: Any) -> Any:
        """The agent's process object (not started) under the node's executor."""
        if self.spawn is None:
            from desktop.providers.process import AgentProcess

            return AgentProcess(argv, **kwargs)
        return self.spawn(argv, **kwargs)

    def launch_command(self, argv: list[str],
                       env: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
        """What to spawn for ``argv`` with ``env``: sandboxed when the node has a sandbox."""
        if self.launch is None:
            return list(argv), dict(env)
        return self.launch(list(argv), dict(env))


@dataclass
class TurnOutcome:
    """How the agent process ended."""

    exit_code: int
    final_text: str = ""
    session_id: str | None = None
    pid: int | None = None
    pgid: int | None = None
    error: str | None = None
    commandline: str | None = None
    output_limit_exceeded: bool = False


class Provider(abc.ABC):
    """One agent family. A fresh instance runs one turn."""

    name: str = ""
    can_gate: bool = False

    @abc.abstractmethod
    def start(self, request: TurnRequest) -> AsyncIterator[dict[str, Any]]:
        """Launch the agent and yield partial contract events until it exits."""

    async def stream(self, request: TurnRequest) -> AsyncIterator[list[dict[str, Any]]]:
        """The events of :meth:`start` in batches (one list per step, in order).

        A fast streaming provider overrides this to hand over many events per step;
        the engine reads it, and the default wraps each event of :meth:`start`.
        """
        async for event in self.start(request):
            yield [event]

    @abc.abstractmethod
    async def cancel(self) -> None:
        """End the agent's whole process group (SIGTERM, then SIGKILL after a grace)."""

    @property
    @abc.abstractmethod
    def outcome(self) -> TurnOutcome:
        """How the turn ended; valid once ``start``'s iterator is exhausted."""

    @property
    def pid(self) -> int | None:
        """The agent's process id once started (for run-info.yaml)."""
        return None
