"""The worker's side of a remote agent run: one agent process, its folders, its change.

An :class:`AgentHost` lives on the machine that runs the agent (a Ray actor wraps
it; tests call it in-process). It never writes the run's event log: it hands back
what the engine asks for, and the engine writes everything.

1. :meth:`prepare` clones the workspace bundle into a private folder and makes the
   agent's run folder and an empty local message bus beside it.
2. :meth:`spawn` writes the agent run folder's inputs, rewrites the engine's paths
   into the worker's (argv, env, cwd, stdin, those files), wraps the command in the
   node's sandbox *here*, and starts the agent under
   :class:`~desktop.providers.process.AgentProcess` (its own process group, watched
   by this process's reaper, so it dies with the worker too).
3. :meth:`read` hands over its output lines and new bus posts, at most
   ``max_bytes`` at a time; the agent is not read further while too much waits.
4. :meth:`collect` returns the patch of the workspace and the run folder's files;
   :meth:`close` ends the agent if it still runs and removes the folders.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import re
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

from desktop.contract.sandbox import Sandbox
from desktop.providers.process import AgentProcess
from desktop.providers.redact import Redactor
from desktop.runtime import runner_record, sandbox, workspace_ship

WORKER_DIR_ENV = "AGENT_CANVAS_WORKER_DIR"
MACHINE_VARS = ("PATH", "HOME", "TMPDIR", "VIRTUAL_ENV")
"""Variables that describe the machine, so the worker's own values replace the engine's."""
DROPPED_VARS = ("CONDUCTOR_URL", "AGENT_CANVAS_API_TOKEN")
"""The engine's loopback API cannot be reached from a worker: bus posts go to the file."""
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
PENDING_BYTES = 1 << 20
QUEUED_BATCHES = 64
MAX_FILE_BYTES = 32 << 20
RETURNED_SKIP = frozenset({"agent-stdout.txt", "agent-stderr.txt"})


class HostError(RuntimeError):
    """The worker cannot do what was asked; the text says why."""


class PathMap:
    """Rewrites path prefixes in one pass (longest first, whole path names only)."""

    def __init__(self, pairs: dict[str, str]):
        self.table = {k: v for k, v in pairs.items() if k and k != v}
        keys = sorted(self.table, key=len, reverse=True)
        self._re = re.compile("|".join(re.escape(k) for k in keys) + r"(?![A-Za-z0-9_.-])") \
            if keys else None
        self._bre = re.compile(self._re.pattern.encode()) if self._re else None
        self._btable = {k.encode(): v.encode() for k, v in self.table.items()}

    def text(self, value: str) -> str:
        if self._re is None:
            return value
        return self._re.sub(lambda m: self.table[m.group(0)], value)

    def data(self, value: bytes) -> bytes:
        if self._bre is None:
            return value
        return self._bre.sub(lambda m: self._btable[m.group(0)], value)

    def reverse(self) -> PathMap:
        return PathMap({v: k for k, v in self.table.items()})


def worker_base() -> Path:
    """Where this worker keeps agent runs: $AGENT_CANVAS_WORKER_DIR or a temp folder."""
    configured = os.environ.get(WORKER_DIR_ENV)
    return Path(configured) if configured else Path(tempfile.gettempdir()) / "agent-canvas-worker"


def _safe_name(name: str) -> bool:
    parts = Path(name).parts
    return bool(parts) and not Path(name).is_absolute() and ".." not in parts


class AgentHost:
    """One agent run on this machine (see the module docstring)."""

    def __init__(self, base: Path | None = None, host_id: str | None = None):
        self.base = base or worker_base()
        self.host_id = host_id or socket.gethostname()
        self.root: Path | None = None
        self.folder: Path | None = None
        self.workspace: Path | None = None
        self.bus: Path | None = None
        self.paths = PathMap({})
        self.process: AgentProcess | None = None
        self._bus_offset = 0
        self._base_commit = ""
        self._sent: dict[str, bytes] = {}
        self._queue: asyncio.Queue[tuple[str, list[str]] | None] = asyncio.Queue(QUEUED_BATCHES)
        self._pump: asyncio.Task[None] | None = None
        self._ended = False
        self._exit: int | None = None

    # --- before the agent ----------------------------------------------------------------

    async def prepare(self, job: dict[str, Any]) -> dict[str, Any]:
        """Clone the workspace and make the folders; the facts of this machine."""
        return await asyncio.to_thread(self._prepare, job)

    def _prepare(self, job: dict[str, Any]) -> dict[str, Any]:
        agent_run_id = str(job["agentRunId"])
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,80}", agent_run_id):
            raise HostError(f"bad agent run id {agent_run_id!r}")
        self.base.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix=f"{agent_run_id}-", dir=self.base))
        run = self.root / "run"
        self.folder = run / "agents" / agent_run_id
        self.folder.mkdir(parents=True)
        self.bus = run / "events.jsonl"
        self.bus.touch()
        self._base_commit = str(job["base"])
        try:
            self.workspace = workspace_ship.unpack(
                job["bundle"], self._base_commit, self.root / "repo",
                prefix=str(job.get("prefix") or ""), repo=job.get("repo"),
                exclude=bytes(job.get("exclude") or b""))
        except workspace_ship.ShipError as exc:
            raise HostError(str(exc)) from None
        engine = job["engine"]
        self.paths = PathMap({
            str(engine["workspace"]): str(self.workspace),
            str(engine["agentDir"]): str(self.folder),
            str(engine["runDir"]): str(run), str(Path(engine["runDir"]).parent): str(run.parent),
            str(engine["python"]): sys.executable, str(engine["package"]): PACKAGE_ROOT})
        return {"hostId": self.host_id, "hostname": socket.gethostname(),
                "machine": platform.machine(), "workspace": str(self.workspace)}

    async def spawn(self, request: dict[str, Any]) -> dict[str, Any]:
        """Start the agent; ``{pid, pgid, env, facts}`` or ``{error, exitCode}``."""
        assert self.folder is not None and self.workspace is not None
        paths = self.paths
        for name, data in (request.get("files") or {}).items():
            if not _safe_name(name) or name in RETURNED_SKIP:
                continue
            target = self.folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            mapped = paths.data(bytes(data))
            target.write_bytes(mapped)
            self._sent[name] = mapped
        env = {k: paths.text(str(v)) for k, v in dict(request["env"]).items()
               if k not in DROPPED_VARS}
        for name in MACHINE_VARS:
            if os.environ.get(name):
                env[name] = os.environ[name]
        argv = [paths.text(str(a)) for a in request["argv"]]
        box = Sandbox.model_validate(request["sandbox"]) if request.get("sandbox") else None
        refused = await asyncio.to_thread(sandbox.refusal, str(request.get("node") or "agent"),
                                          str(request.get("provider") or ""), box)
        if refused is not None:
            return {"error": refused, "exitCode": 126}
        launch = sandbox.SandboxLaunch(box or Sandbox(), self.workspace, self.folder, self.bus)
        argv, env = launch.wrap(argv, env)
        stdin = request.get("stdin")
        self.process = process = AgentProcess(
            argv, cwd=self.workspace, env=env,
            stdin_data=paths.data(bytes(stdin)) if stdin is not None else None,
            keep_stdin_open=bool(request.get("keepStdinOpen")),
            max_output_bytes=request.get("maxOutputBytes"),
            redactor=Redactor(list(request.get("secrets") or [])),
            grace=float(request.get("grace") or 3.0), max_pending_bytes=PENDING_BYTES)
        try:
            await process.start()
        except OSError as exc:
            return {"error": f"cannot start {argv[0]!r} on {self.host_id}: "
                             f"{exc.strerror or exc}", "exitCode": 127}
        self._pump = asyncio.create_task(self._forward(process))
        facts = await asyncio.to_thread(runner_record.host_facts, env)
        facts["host_id"] = self.host_id
        return {"pid": process.pid, "pgid": process.pgid, "env": env, "facts": facts}

    # --- while it runs --------------------------------------------------------------------

    async def _forward(self, process: AgentProcess) -> None:
        # A bounded queue: when the engine reads slowly, this stops taking the agent's
        # output, the process stops reading its pipes, and the agent blocks writing.
        async for item in process.batches():
            await self._queue.put(item)
        await self._queue.put(None)

    async def read(self, max_bytes: int = 1 << 20, wait: float = 5.0) -> dict[str, Any]:
        """The next output: ``{"out": [(stream, lines)...], "bus": [...], "exit": code|None}``;
        waits up to ``wait`` s for the first batch."""
        out: list[tuple[str, list[str]]] = []
        size = 0
        if self._pump is not None and not self._ended:
            with contextlib.suppress(TimeoutError):
                item = await asyncio.wait_for(self._queue.get(), wait)
                while True:
                    if item is None:
                        self._ended = True
                        break
                    out.append(item)
                    size += sum(len(x) + 1 for x in item[1])
                    if size >= max_bytes or self._queue.empty():
                        break
                    item = self._queue.get_nowait()
        if self._ended and self._exit is None and self.process is not None:
            self._exit = await self.process.wait()
        return {"out": out, "bus": self._bus_lines(), "exit": self._exit,
                "killed": bool(self.process and self.process.killed),
                "limit": bool(self.process and self.process.output_limit_exceeded)}

    def _bus_lines(self) -> list[dict[str, Any]]:
        """Posts appended to the local bus since the last call (complete lines only)."""
        if self.bus is None:
            return []
        try:
            with open(self.bus, "rb") as handle:
                handle.seek(self._bus_offset)
                data = handle.read()
        except OSError:
            return []
        end = data.rfind(b"\n") + 1
        self._bus_offset += end
        found = []
        for line in data[:end].splitlines():
            with contextlib.suppress(ValueError):
                event = orjson.loads(line)
                if isinstance(event, dict):
                    found.append(event)
        return found

    async def write(self, data: bytes) -> bool:
        process = self.process
        return bool(process) and await process.send_line(bytes(data).decode("utf-8"))

    async def close_stdin(self) -> None:
        if self.process is not None:
            await self.process.close_stdin()

    async def terminate(self, grace: float | None = None) -> None:
        """End the agent's whole process group here: SIGTERM, ``grace``, SIGKILL."""
        if self.process is not None:
            await self.process.terminate(grace)

    # --- after ------------------------------------------------------------------------------

    async def collect(self) -> dict[str, Any]:
        """The workspace's patch since the start, and the run folder's new or changed files
        (the engine's paths put back in their text)."""
        return await asyncio.to_thread(self._collect)

    def _collect(self) -> dict[str, Any]:
        assert self.folder is not None and self.workspace is not None
        problems: list[str] = []
        try:
            patch = workspace_ship.patch_since(self.workspace, self._base_commit)
        except workspace_ship.ShipError as exc:
            patch, problems = b"", [f"the workspace change could not be read: {exc}"]
        back = self.paths.reverse()
        files: dict[str, bytes] = {}
        for path in sorted(self.folder.rglob("*")):
            name = path.relative_to(self.folder).as_posix()
            if not path.is_file() or path.is_symlink() or name in RETURNED_SKIP:
                continue
            if path.stat().st_size > MAX_FILE_BYTES:
                problems.append(f"{name}: larger than {MAX_FILE_BYTES >> 20} MB, left behind")
                continue
            data = path.read_bytes()
            if self._sent.get(name) == data:
                continue
            files[name] = back.data(data)
        bus = self._bus_lines()
        return {"patch": patch, "files": files, "problems": problems, "bus": bus}

    async def close(self) -> None:
        """End the agent if it still runs, and remove this run's folders."""
        process = self.process
        if process is not None and process.exit_code is None:
            await process.terminate(1.0)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), 15)
        if self.root is not None:
            await asyncio.to_thread(shutil.rmtree, self.root, True)
            self.root = None
