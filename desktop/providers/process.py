"""Supervision of one agent process: its own process group, streamed output, group kill.

The agent runs as the leader of a new session (so of a new process group).
Its stdout is read in chunks and split into lines here, so a 10 MB line or
invalid UTF-8 never breaks the reader; both streams are copied to files as
they arrive. The lines of one chunk travel together (:meth:`AgentProcess.batches`),
so a fast agent costs one hand-over per chunk rather than one per line.
Ending the agent always ends the whole group: SIGTERM, a grace period, then
SIGKILL, until no process of the group is left. Then the processes that left the
group (``setsid``) but carry the agent run's ``JRUN_ID`` are ended the same way
(desktop/providers/marked.py), so nothing an agent started outlives its run.
"""

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from desktop.providers.marked import end_marked_async
from desktop.providers.pgroup import POSIX as _POSIX
from desktop.providers.pgroup import group_members, pid_alive
from desktop.providers.reaper import REAPER
from desktop.providers.redact import Redactor
from desktop.store.safe_open import open_file

__all__ = ["AgentProcess", "group_members", "pid_alive"]

CHUNK = 64 * 1024
DEFAULT_MAX_LINE = 16 * 1024 * 1024
DEFAULT_GRACE = 3.0
TRUNCATED = " [line truncated]"


class AgentProcess:
    """One agent process: spawn, stream stdout lines, tee to files, kill its group."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        stdout_path: Path | None = None,
        stderr_path: Path | None = None,
        stdin_data: bytes | None = None,
        keep_stdin_open: bool = False,
        max_output_bytes: int | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE,
        grace: float = DEFAULT_GRACE,
        redactor: Redactor | None = None,
        on_stderr_line: Callable[[str], None] | None = None,
        max_pending_bytes: int | None = None,
    ):
        self.argv = list(argv)
        self.cwd = cwd
        self.env = dict(env)
        self.stdout_path, self.stderr_path = stdout_path, stderr_path
        self.stdin_data = stdin_data
        self.keep_stdin_open = keep_stdin_open
        self.max_output_bytes = max_output_bytes
        self.max_line_bytes = max_line_bytes
        self.grace = grace
        self.redactor = redactor or Redactor()
        self.on_stderr_line = on_stderr_line
        self.pid: int | None = None
        self.pgid: int | None = None
        self.exit_code: int | None = None
        self.killed = False
        self.output_limit_exceeded = False
        self.stderr_tail = ""
        self._proc: asyncio.subprocess.Process | None = None
        self._queue: asyncio.Queue[tuple[str, list[str]] | None] = asyncio.Queue()
        self._bytes = 0
        self._tasks: list[asyncio.Task] = []
        self._feeder: asyncio.Task | None = None
        self._killer: asyncio.Task | None = None
        self._supervisor: asyncio.Task | None = None
        self._files: list[BinaryIO] = []
        self._kill_lock = asyncio.Lock()
        self._marked_ended = False  # no process with the agent run's marker is left
        # Back-pressure: with a bound, the pipes are not read while this much of the
        # agent's output waits to be taken from batches() (the agent then blocks writing).
        self.max_pending_bytes = max_pending_bytes
        self._pending = 0
        self._room = asyncio.Event()
        self._room.set()

    async def start(self) -> None:
        """Spawn the process; OSError (e.g. FileNotFoundError) when it cannot start."""
        out = self._open(self.stdout_path)
        err = self._open(self.stderr_path)
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self.argv,
                cwd=str(self.cwd),
                env=self.env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=_POSIX,
            )
        except BaseException:
            self._close_files()
            raise
        self.pid = self._proc.pid
        self.pgid = self._pgid_of(self._proc.pid)
        REAPER.watch(self.pgid, self.pid)  # the group dies with this process, however it ends
        self._tasks = [
            asyncio.create_task(self._pump(self._proc.stdout, out, self._stdout_lines)),
            asyncio.create_task(self._pump(self._proc.stderr, err, self._stderr_lines)),
        ]
        if self.stdin_data is not None or not self.keep_stdin_open:
            self._feeder = asyncio.create_task(self._feed_stdin())
        self._supervisor = asyncio.create_task(self._supervise())

    @staticmethod
    def _pgid_of(pid: int) -> int:
        if not _POSIX:
            return pid
        try:
            return os.getpgid(pid)
        except ProcessLookupError:
            return pid

    def _close_files(self) -> None:
        for handle in self._files:
            with contextlib.suppress(OSError):
                handle.close()

    def _open(self, path: Path | None) -> BinaryIO | None:
        if path is None:
            return None
        handle = open_file(path, "ab")  # not through a link the agent made; closed in _supervise
        self._files.append(handle)
        return handle

    async def batches(self) -> AsyncIterator[tuple[str, list[str]]]:
        """``("stdout"|"stderr", lines)`` as they come, until the process has ended.

        Lines are decoded with invalid UTF-8 replaced and the newline stripped; each
        batch holds the complete lines of one read, in order.
        """
        while True:
            item = await self._queue.get()
            if item is None:
                return
            if self.max_pending_bytes is not None:
                self._pending -= sum(len(line) + 1 for line in item[1])
                if self._pending <= self.max_pending_bytes:
                    self._room.set()
            yield item

    async def output(self) -> AsyncIterator[tuple[str, str]]:
        """``("stdout"|"stderr", line)`` one line at a time (see :meth:`batches`)."""
        async for stream, lines in self.batches():
            for line in lines:
                yield stream, line

    def has_batch(self) -> bool:
        """Whether a batch waits to be taken from :meth:`batches` right now."""
        return not self._queue.empty()

    async def lines(self) -> AsyncIterator[str]:
        """Only the stdout lines of :meth:`output`."""
        async for stream, line in self.output():
            if stream == "stdout":
                yield line

    async def send_line(self, text: str) -> bool:
        """Write one line to the agent's stdin; False when it is no longer reading."""
        stdin = self._proc.stdin if self._proc else None
        if stdin is None or stdin.is_closing():
            return False
        try:
            stdin.write(text.encode("utf-8") + b"\n")
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            return False
        return True

    async def close_stdin(self) -> None:
        stdin = self._proc.stdin if self._proc else None
        if stdin is not None and not stdin.is_closing():
            with contextlib.suppress(OSError, RuntimeError):
                stdin.close()

    async def wait(self) -> int:
        """The exit code, once the process, its group and both streams have ended."""
        if self._supervisor is None:
            raise RuntimeError("process was not started")
        await asyncio.shield(self._supervisor)
        assert self.exit_code is not None
        return self.exit_code

    async def terminate(self, grace: float | None = None) -> None:
        """End the whole process group: SIGTERM, wait ``grace`` s, then SIGKILL."""
        if self._proc is None:
            return
        if self._proc.returncode is None:
            self.killed = True
        await self._kill_group(self.grace if grace is None else grace)

    async def _feed_stdin(self) -> None:
        assert self._proc and self._proc.stdin
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError, OSError):
            if self.stdin_data:
                self._proc.stdin.write(self.stdin_data)
                await self._proc.stdin.drain()
            if not self.keep_stdin_open:
                self._proc.stdin.close()

    def _note_pending(self, lines: list[str]) -> None:
        if self.max_pending_bytes is not None:
            self._pending += sum(len(line) + 1 for line in lines)
            if self._pending > self.max_pending_bytes:
                self._room.clear()

    def _stdout_lines(self, lines: list[str]) -> None:
        self._note_pending(lines)
        self._queue.put_nowait(("stdout", lines))

    def _stderr_lines(self, lines: list[str]) -> None:
        self.stderr_tail = (self.stderr_tail + "\n".join(lines) + "\n")[-4000:]
        self._note_pending(lines)
        self._queue.put_nowait(("stderr", lines))
        if self.on_stderr_line is not None:
            for line in lines:
                self.on_stderr_line(line)

    def _count(self, size: int) -> bool:
        """Account for output; False (and a group kill) once the limit is passed."""
        if self.output_limit_exceeded:
            return False
        self._bytes += size
        if self.max_output_bytes is not None and self._bytes > self.max_output_bytes:
            self.output_limit_exceeded = True
            self._killer = asyncio.create_task(self.terminate())
            return False
        return True

    async def _pump(
        self,
        stream: asyncio.StreamReader | None,
        sink: BinaryIO | None,
        deliver: Callable[[list[str]], None],
    ) -> None:
        """Read ``stream`` in chunks, split lines, tee them to ``sink``, deliver them."""
        assert stream is not None
        buf = bytearray()  # the start of a line whose newline has not come yet
        skipping = False  # inside a line already delivered truncated
        redact = self.redactor.data

        def keep(raw: bytes) -> str:
            raw = redact(raw)
            if sink is not None:
                sink.write(raw)
            return raw.decode("utf-8", errors="replace")

        try:
            while True:
                if not self._room.is_set():
                    await self._room.wait()
                chunk = await stream.read(CHUNK)
                if not chunk:
                    break
                if not self._count(len(chunk)):
                    continue  # over the limit: drain, keep nothing more
                last = chunk.rfind(b"\n")
                if last < 0:
                    buf += chunk
                else:
                    # Every complete line of the read at once: '\n' is never part of a
                    # multi-byte UTF-8 sequence, so decoding them together splits the same.
                    if buf:
                        buf += chunk[:last + 1]
                        block = bytes(buf)
                    else:
                        block = chunk[:last + 1]
                    buf = bytearray(chunk[last + 1:])
                    lines = keep(block).split("\n")
                    lines.pop()  # what follows the last newline: nothing
                    if skipping:  # the rest of a line delivered truncated
                        del lines[0]
                        skipping = False
                    if b"\r" in block:
                        lines = [line.rstrip("\r") for line in lines]
                    if lines:
                        deliver(lines)
                if len(buf) > self.max_line_bytes:
                    text = keep(bytes(buf))
                    if not skipping:
                        deliver([text.rstrip("\r\n") + TRUNCATED])
                    skipping = True
                    buf = bytearray()
            if buf and not self.output_limit_exceeded:
                text = keep(bytes(buf))
                if not skipping:
                    deliver([text.rstrip("\r\n")])
        finally:
            if sink is not None:
                sink.flush()

    async def _supervise(self) -> None:
        assert self._proc is not None
        waiter = asyncio.create_task(self._proc.wait())
        try:
            # Process.wait() also waits for the pipes to close, which a leftover
            # grandchild can hold open forever; returncode is set at exit itself.
            while self._proc.returncode is None:
                await asyncio.wait({waiter}, timeout=0.05)
            self.exit_code = self._proc.returncode
            # Leftover children would keep the pipes open and outlive the turn.
            await self._kill_group(self.grace)
            readers = [t for t in self._tasks if not t.done()]
            if readers:
                _, pending = await asyncio.wait(readers, timeout=5.0)
                for task in pending:
                    task.cancel()
            if self._killer is not None:
                await self._killer
            await asyncio.wait({waiter}, timeout=1.0)
        finally:
            for task in (self._feeder, waiter):
                if task is not None and not task.done():
                    task.cancel()
            self._close_transport()
            self._close_files()
            if not group_members(self.pgid or 0):
                REAPER.forget(self.pgid)
            self._queue.put_nowait(None)
            if self.exit_code is None:
                self.exit_code = -1

    def _close_transport(self) -> None:
        """Close the process's pipes now, whatever state supervision ended in.

        asyncio closes a subprocess transport itself only once the process has exited and
        every pipe has closed; a supervisor cancelled before that (the run ended, the loop
        is shutting down) would leave it to the collector, whose finaliser then fails on
        the closed loop. ``Process`` has no public close, hence its transport.
        """
        transport = getattr(self._proc, "_transport", None)
        if transport is not None and not transport.is_closing():
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                transport.close()

    async def _kill_group(self, grace: float) -> None:
        async with self._kill_lock:
            await self._end_group(grace)
            await self._end_marked(grace)

    async def _end_group(self, grace: float) -> None:
        pgid = self.pgid
        if not _POSIX or pgid is None:
            if self._proc and self._proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self._proc.kill()
            return
        if not group_members(pgid):
            return
        for sig, wait_for in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(pgid, sig)
            except (ProcessLookupError, PermissionError):
                return
            deadline = time.monotonic() + wait_for
            while group_members(pgid) and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            if not group_members(pgid):
                return

    async def _end_marked(self, grace: float) -> None:
        """End what left the group but carries the agent run's ``JRUN_ID`` (``setsid``)."""
        run_id = self.env.get("JRUN_ID")
        if not run_id or self._marked_ended:
            return
        await end_marked_async(run_id, grace)
        # With the group gone, nothing is left to start another marked process: the
        # second call (terminate, then the supervisor at exit) need not look again.
        self._marked_ended = not _POSIX or not group_members(self.pgid or 0)
