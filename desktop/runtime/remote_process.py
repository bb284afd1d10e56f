"""An agent process on another machine, seen through the interface of AgentProcess.

Providers drive a :class:`RemoteProcess` exactly as they drive a local
:class:`~desktop.providers.process.AgentProcess`: ``start``, ``batches``,
``send_line``, ``terminate``, ``wait``. Underneath, a *link* to the worker's
:class:`~desktop.runtime.worker_host.AgentHost` carries each call; the output
lines it pulls are copied to agent-stdout.txt / agent-stderr.txt here, on the
engine's side, so the run folder is complete whatever happens to the worker.
One read is outstanding at a time: the worker holds the agent back while the
engine has not taken its output (back-pressure end to end).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from desktop.store.safe_open import open_file

READ_BYTES = 1 << 20


class HostLink(Protocol):
    """The calls a RemoteProcess makes on its worker (see worker_host.AgentHost)."""

    async def spawn(self, request: dict[str, Any]) -> dict[str, Any]: ...
    async def read(self, max_bytes: int) -> dict[str, Any]: ...
    async def write(self, data: bytes) -> bool: ...
    async def close_stdin(self) -> None: ...
    async def terminate(self, grace: float | None) -> None: ...


class RemoteProcess:
    """One agent process on a worker (see the module docstring)."""

    def __init__(self, link: HostLink, argv: Sequence[str], *, cwd: Path,
                 env: Mapping[str, str], stdout_path: Path | None = None,
                 stderr_path: Path | None = None, stdin_data: bytes | None = None,
                 keep_stdin_open: bool = False, max_output_bytes: int | None = None,
                 grace: float = 3.0, extra: dict[str, Any] | None = None,
                 on_bus: Callable[[list[dict[str, Any]]], None] | None = None,
                 on_spawn: Callable[[dict[str, Any]], None] | None = None,
                 describe_loss: Callable[[BaseException], str] = str, **_ignored: Any):
        self.link = link
        self.argv, self.cwd, self.env = list(argv), cwd, dict(env)
        self.stdout_path, self.stderr_path = stdout_path, stderr_path
        self.stdin_data, self.keep_stdin_open = stdin_data, keep_stdin_open
        self.max_output_bytes, self.grace = max_output_bytes, grace
        self.extra = extra or {}
        self.on_bus, self.on_spawn, self.describe_loss = on_bus, on_spawn, describe_loss
        self.pid: int | None = None
        self.pgid: int | None = None
        self.exit_code: int | None = None
        self.killed = False
        self.output_limit_exceeded = False
        self.lost: str | None = None
        """Why the worker was lost mid-run (None while it answers)."""
        self.stderr_tail = ""
        self._queue: asyncio.Queue[tuple[str, list[str]] | None] = asyncio.Queue()
        self._files: dict[str, BinaryIO] = {}
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start the agent on the worker; OSError when it cannot start there."""
        request = {"argv": self.argv, "env": self.env, "cwd": str(self.cwd),
                   "stdin": self.stdin_data, "keepStdinOpen": self.keep_stdin_open,
                   "maxOutputBytes": self.max_output_bytes, "grace": self.grace, **self.extra}
        try:
            reply = await self.link.spawn(request)
        except Exception as exc:  # the worker is gone before the agent started
            raise OSError(1, self.describe_loss(exc)) from None
        if reply.get("error"):
            raise OSError(int(reply.get("exitCode") or 127), str(reply["error"]))
        self.pid, self.pgid = int(reply["pid"]), int(reply.get("pgid") or reply["pid"])
        if self.on_spawn is not None:
            self.on_spawn(reply)
        for stream, path in (("stdout", self.stdout_path), ("stderr", self.stderr_path)):
            if path is not None:
                self._files[stream] = open_file(path, "ab")
        self._reader = asyncio.create_task(self._pull())

    async def _pull(self) -> None:
        try:
            while True:
                try:
                    got = await self.link.read(READ_BYTES)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # the worker died, or the connection with it
                    self.lost = self.describe_loss(exc)
                    self._deliver("stderr", [f"agent-canvas: {self.lost}"])
                    self.exit_code = -1
                    return
                for stream, lines in got.get("out") or ():
                    if stream in ("stdout", "stderr") and isinstance(lines, list):
                        self._deliver(stream, [str(line) for line in lines])
                if got.get("bus") and self.on_bus is not None:
                    self.on_bus(list(got["bus"]))
                if got.get("exit") is not None:
                    self.exit_code = int(got["exit"])
                    self.killed = self.killed or bool(got.get("killed"))
                    self.output_limit_exceeded = bool(got.get("limit"))
                    return
        finally:
            for handle in self._files.values():
                with contextlib.suppress(OSError):
                    handle.close()
            if self.exit_code is None:
                self.exit_code = -1
            self._queue.put_nowait(None)

    def _deliver(self, stream: str, lines: list[str]) -> None:
        if not lines:
            return
        handle = self._files.get(stream)
        if handle is not None:
            handle.write(("\n".join(lines) + "\n").encode("utf-8", "replace"))
            handle.flush()
        if stream == "stderr":
            self.stderr_tail = (self.stderr_tail + "\n".join(lines) + "\n")[-4000:]
        self._queue.put_nowait((stream, lines))

    async def batches(self) -> AsyncIterator[tuple[str, list[str]]]:
        """``("stdout"|"stderr", lines)`` as the worker hands them over, until the end."""
        while True:
            item = await self._queue.get()
            if item is None:
                return
            yield item

    async def output(self) -> AsyncIterator[tuple[str, str]]:
        async for stream, lines in self.batches():
            for line in lines:
                yield stream, line

    async def send_line(self, text: str) -> bool:
        """One line to the agent's stdin on the worker; False when it is gone."""
        if self._reader is None or self._reader.done():
            return False
        try:
            return bool(await self.link.write(text.encode("utf-8")))
        except Exception:
            return False

    async def close_stdin(self) -> None:
        with contextlib.suppress(Exception):
            await self.link.close_stdin()

    async def wait(self) -> int:
        """The exit code, once the worker reported the end (or was lost)."""
        if self._reader is None:
            raise RuntimeError("process was not started")
        await asyncio.shield(self._reader)
        assert self.exit_code is not None
        return self.exit_code

    async def terminate(self, grace: float | None = None) -> None:
        """End the agent's whole process group on the worker (not just the Ray task)."""
        if self._reader is None or self._reader.done():
            return
        self.killed = True
        with contextlib.suppress(Exception):
            await self.link.terminate(self.grace if grace is None else grace)
