"""Executors: where an agent run's processes run, behind one session interface.

A turn asks :func:`connect` once (so an unreachable cluster pauses the run before
the turn starts), then each agent run opens a session with :func:`open_session`:

- :class:`LocalSession` (``executor: local``, the default) spawns
  :class:`~desktop.providers.process.AgentProcess` here, as always.
- :class:`RemoteSession` (``executor: {kind: ray, ...}``) packs the workspace
  (desktop/runtime/workspace_ship.py), places an
  :class:`~desktop.runtime.worker_host.AgentHost` on a worker through a *link*,
  spawns :class:`~desktop.runtime.remote_process.RemoteProcess` there, and at the
  end writes the worker's run-folder files here and applies its patch.

Everything above the process (prompt, env allowlist, provider parsing, gate,
events, limits) is the same code for both. Ray is imported only by the Ray link
(desktop/runtime/ray_exec.py), and only when a node asks for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.contract.executor import RayExecutor, as_ray
from desktop.disk.atomic import atomic_write_bytes
from desktop.providers.bus_client import POST_TYPES
from desktop.providers.process import AgentProcess
from desktop.runtime import workspace_ship
from desktop.runtime.remote_process import RemoteProcess

LinkFactory = Callable[[RayExecutor, str], Awaitable[Any]]
Connector = Callable[[RayExecutor], Awaitable[None]]
LINKS: dict[str, str] = {"ray": "desktop.runtime.ray_exec"}
"""Module of each remote kind; it has ``connect(spec)`` and ``open_link(spec, name)``."""
MAX_BUS_MESSAGE = 64 * 1024
UNAPPLIED = "diff.unapplied.patch"
CONCURRENT = "diff.concurrent.patch"


class ExecutorUnavailable(RuntimeError):
    """The cluster cannot be reached (or its client is not installed): the run pauses."""


class RemoteError(RuntimeError):
    """The worker could not run this agent run; the agent run fails with this reason."""


def _module(kind: str) -> Any:
    return importlib.import_module(LINKS[kind])


async def connect(spec: Any) -> None:
    """Make sure the executor ``spec`` names can be used; ExecutorUnavailable if not."""
    ray = as_ray(spec)
    if ray is not None:
        await _module("ray").connect(ray)


async def end_orphan(spec: Any, agent_run_id: str) -> bool:
    """End an agent run a dead engine left on a cluster (found by its name there)."""
    ray = as_ray(spec)
    if ray is None:
        return False
    try:
        return bool(await _module("ray").end_orphan(ray, agent_run_id))
    except ExecutorUnavailable:
        return False


class LocalSession:
    """Agent processes on this machine."""

    remote = False
    facts: dict[str, Any] | None = None
    seen_env: dict[str, str] | None = None

    async def open(self) -> None:
        return None

    def process(self, argv: list[str], **kwargs: Any) -> AgentProcess:
        return AgentProcess(argv, **kwargs)

    async def finish(self) -> RemoteResult | None:
        return None

    async def close(self) -> None:
        return None


@dataclass
class RemoteResult:
    """What came back: the agent's patch, and why it did not apply (None: it did)."""

    patch: bytes
    conflict: str | None = None
    problems: list[str] | None = None


class RemoteSession:
    """One agent run on a worker (see the module docstring)."""

    remote = True

    def __init__(self, spec: RayExecutor, *, workspace: Path, folder: Path, run_dir: Path,
                 agent_run_id: str, node: str, provider: str, sandbox: dict[str, Any] | None,
                 on_bus: Callable[[list[dict[str, Any]]], None]):
        self.spec, self.workspace, self.folder = spec, workspace, folder
        self.run_dir, self.agent_run_id = run_dir, agent_run_id
        self.node, self.provider, self.sandbox = node, provider, sandbox
        self.on_bus = on_bus
        self.link: Any = None
        self.shipment: workspace_ship.Shipment | None = None
        self.facts: dict[str, Any] | None = None
        self.seen_env: dict[str, str] | None = None
        self.describe_loss: Callable[[BaseException], str] = str

    async def open(self) -> None:
        """Pack the workspace and place the agent's host on a worker; RemoteError if not."""
        since = self.spec.repo.ref if self.spec.repo else None
        try:
            self.shipment = await asyncio.to_thread(workspace_ship.pack, self.workspace, since)
        except workspace_ship.ShipError as exc:
            raise RemoteError(f"the workspace {self.workspace} cannot travel: {exc}") from None
        module = _module(self.spec.kind)
        self.describe_loss = module.describe_loss
        self.link = await module.open_link(self.spec, self.agent_run_id)
        ship = self.shipment
        job = {"agentRunId": self.agent_run_id, "bundle": ship.bundle, "base": ship.base,
               "prefix": ship.prefix, "exclude": ship.exclude,
               "repo": self.spec.repo.url if self.spec.repo else None,
               "engine": {"workspace": str(self.workspace), "agentDir": str(self.folder),
                          "runDir": str(self.run_dir), "python": sys.executable,
                          "package": str(Path(__file__).resolve().parents[2])}}
        try:
            await self.link.prepare(job)
        except Exception as exc:
            raise RemoteError(self.describe_loss(exc)) from None

    def process(self, argv: list[str], **kwargs: Any) -> RemoteProcess:
        """The agent process on the worker; the run folder's inputs go with it."""
        files = {p.relative_to(self.folder).as_posix(): p.read_bytes()
                 for p in sorted(self.folder.rglob("*")) if p.is_file() and not p.is_symlink()}
        extra = {"files": files, "sandbox": self.sandbox, "node": self.node,
                 "provider": self.provider,
                 "secrets": list(getattr(kwargs.get("redactor"), "secrets", []) or [])}
        return RemoteProcess(self.link, argv, extra=extra, on_bus=self.on_bus,
                             on_spawn=self._spawned, describe_loss=self.describe_loss,
                             **kwargs)

    def _spawned(self, reply: dict[str, Any]) -> None:
        self.seen_env = {str(k): str(v) for k, v in dict(reply.get("env") or {}).items()}
        facts = reply.get("facts")
        self.facts = dict(facts) if isinstance(facts, dict) else None

    async def finish(self) -> RemoteResult:
        """Bring the run folder's files back, then apply the patch (all or nothing)."""
        assert self.shipment is not None
        try:
            got = await self.link.collect()
        except Exception as exc:
            return RemoteResult(b"", problems=[f"nothing came back: {self.describe_loss(exc)}"])
        problems = [str(p) for p in got.get("problems") or []]
        problems += await asyncio.to_thread(self._write_files, dict(got.get("files") or {}))
        if got.get("bus"):
            self.on_bus(list(got["bus"]))
        patch = bytes(got.get("patch") or b"")
        conflict = await asyncio.to_thread(workspace_ship.apply_patch, self.shipment, patch)
        if conflict is not None:
            other = await asyncio.to_thread(workspace_ship.change_since_start, self.shipment)
            await asyncio.to_thread(atomic_write_bytes, self.folder / UNAPPLIED, patch)
            await asyncio.to_thread(atomic_write_bytes, self.folder / CONCURRENT, other)
        return RemoteResult(patch, conflict, problems)

    def _write_files(self, files: dict[str, Any]) -> list[str]:
        """Write what the worker sent into the agent run folder: plain relative names only,
        never over the engine's own records."""
        problems = []
        root = self.folder.resolve()
        for name, data in files.items():
            target = (self.folder / str(name)).resolve()
            if not isinstance(data, bytes | bytearray) or not target.is_relative_to(root) \
                    or target == root or target.name in ("run-info.yaml", "runner.json",
                                                         "diff.patch"):
                problems.append(f"{name!r} from the worker was not kept")
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(target, bytes(data))
        return problems

    async def close(self) -> None:
        """End the agent if it still runs and release the worker (always called)."""
        link, self.link = self.link, None
        if link is not None:
            # a worker that is gone took the agent's process group with it
            with contextlib.suppress(Exception):
                await asyncio.wait_for(link.close(), 30)
        if self.shipment is not None:
            self.shipment.close()


def bus_events(raw: list[dict[str, Any]], agent_run_id: str) -> list[dict[str, Any]]:
    """The bus posts a worker relayed, checked: only their message fields are kept, and
    they are attributed to the agent run that made them whatever they claim."""
    events = []
    for item in raw:
        if not isinstance(item, dict) or item.get("type") != "bus.message":
            continue
        kind, message = item.get("busType"), item.get("message")
        if kind not in POST_TYPES or not isinstance(message, str):
            continue
        event = {"type": "bus.message", "busType": kind,
                 "message": message[:MAX_BUS_MESSAGE], "agentRunId": agent_run_id}
        if isinstance(item.get("handoffTo"), str) and item["handoffTo"]:
            event["handoffTo"] = item["handoffTo"][:200]
        events.append(event)
    return events


def open_session(spec: Any, *, workspace: Path, folder: Path, run_dir: Path,
                 agent_run_id: str, node: str, provider: str,
                 sandbox: dict[str, Any] | None,
                 emit: Callable[[dict[str, Any]], None]) -> LocalSession | RemoteSession:
    """The session for one agent run under executor ``spec``."""
    ray = as_ray(spec)
    if ray is None:
        return LocalSession()

    def relay(raw: list[dict[str, Any]]) -> None:
        for event in bus_events(raw, agent_run_id):
            emit(event)

    return RemoteSession(ray, workspace=workspace, folder=folder, run_dir=run_dir,
                         agent_run_id=agent_run_id, node=node, provider=provider,
                         sandbox=sandbox, on_bus=relay)


Session = LocalSession | RemoteSession
