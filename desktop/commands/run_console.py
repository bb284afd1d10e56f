"""Terminal commands for a live run, typed or piped one per line on stdin.

``step [node]``, ``chat NODE TEXT``, ``approve [ID]``, ``deny [ID] [reason]``,
``modify [ID] JSON``, ``pause``, ``resume``, ``stop``, ``mode auto|interactive|
planning|implementation``, ``status``, ``help``. Nodes are named by key, label
or id prefix; approvals by a unique id prefix, or left out for the oldest.
Commands that need something not there yet (a step while a turn still runs,
an approval not yet requested) wait for it while the run is busy, so piped
scripts behave the same however fast the agents are.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
import threading
from collections.abc import Callable

from desktop.runtime.approvals import ApprovalError
from desktop.runtime.engine import Engine, EngineError
from desktop.runtime.scheduler import StepError
from desktop.store.safe_json import loads as safe_loads

HELP = """commands:
  step [NODE]            run the next pending turn (or NODE's) in INTERACTIVE mode
  chat NODE TEXT         send a message to a node (it takes a turn with it)
  approve [ID]           approve a pending tool call (ID prefix; default: oldest)
  deny [ID] [REASON]     deny a pending tool call
  modify [ID] JSON       run a pending tool call with new arguments
  pause | resume | stop  pause new turns, continue, or stop the run
  mode MODE              auto, interactive, planning or implementation
  status                 show the nodes and pending approvals
  help                   this text"""

POLL = 0.05


class StdinLines:
    """Lines of stdin delivered to the loop; a daemon thread does the blocking reads."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stream=None) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.eof = False
        self._loop = loop
        self._stream = stream or sys.stdin
        threading.Thread(target=self._read, name="stdin-commands", daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self._stream:
                self._loop.call_soon_threadsafe(self.queue.put_nowait, line)
        except (OSError, ValueError):
            pass
        self._loop.call_soon_threadsafe(self.queue.put_nowait, None)


class Console:
    """Runs commands against an engine; ``say`` prints their answers."""

    def __init__(self, engine: Engine, say: Callable[[str], None],
                 status: Callable[[], None]) -> None:
        self.engine = engine
        self.say = say
        self.show_status = status

    def _busy(self) -> bool:
        return bool(self.engine.tasks) or self.engine.scheduler.pending_steps() > 0

    async def _when_busy_wait(self, attempt: Callable[[], object]) -> object:
        """Try ``attempt``; while it fails and the run is busy, wait and try again."""
        while True:
            try:
                return attempt()
            except (StepError, ApprovalError) as exc:
                if not self._busy() or self.engine.state.status in (
                        "completed", "failed", "stopped"):
                    raise exc from None
            await asyncio.sleep(POLL)

    def _approval(self, ref: str | None) -> str:
        pending = self.engine.broker.pending()
        if ref is None:
            if not pending:
                raise ApprovalError("no approval is pending")
            return pending[0].approval_id
        return self.engine.broker.match(ref)

    async def execute(self, line: str) -> None:
        """Run one command line; problems are printed, never raised."""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            self.say(f"cannot parse {line.strip()!r}: {exc}")
            return
        if not words:
            return
        name, rest = words[0].lower(), words[1:]
        handler = getattr(self, f"_cmd_{name}", None)
        if handler is None:
            self.say(f"unknown command {name!r}; type `help`")
            return
        try:
            await handler(rest, line)
        except (EngineError, StepError, ApprovalError, ValueError) as exc:
            self.say(f"{name}: {exc}")

    async def _cmd_help(self, _rest: list[str], _line: str) -> None:
        self.say(HELP)

    async def _cmd_status(self, _rest: list[str], _line: str) -> None:
        self.show_status()

    async def _cmd_step(self, rest: list[str], _line: str) -> None:
        node = rest[0] if rest else None
        chosen = await self._when_busy_wait(lambda: self.engine.step(node))
        self.say(f"step: {self.engine.state.nodes[str(chosen)].label}")

    async def _cmd_chat(self, rest: list[str], line: str) -> None:
        if len(rest) < 2:
            raise ValueError("usage: chat NODE TEXT")
        text = line.split(None, 2)[2].strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1]
        self.engine.chat(rest[0], text)

    def _split_ref(self, rest: list[str]) -> tuple[str | None, list[str]]:
        if rest:
            try:
                return self.engine.broker.match(rest[0]), rest[1:]
            except ApprovalError:
                pass
        return None, rest

    async def _resolve(self, rest: list[str], status: str, build: Callable[[list[str]], dict]
                       ) -> None:
        def attempt() -> str:
            ref, tail = self._split_ref(rest)
            approval_id = self._approval(ref)
            self.engine.broker.resolve(approval_id, status, **build(tail))
            return approval_id

        approval_id = await self._when_busy_wait(attempt)
        self.say(f"{status}: {str(approval_id)[:8]}")

    async def _cmd_approve(self, rest: list[str], _line: str) -> None:
        await self._resolve(rest, "approved", lambda _tail: {})

    async def _cmd_deny(self, rest: list[str], _line: str) -> None:
        await self._resolve(rest, "denied",
                            lambda tail: {"reason": " ".join(tail) or "denied in the terminal"})

    async def _cmd_modify(self, rest: list[str], line: str) -> None:
        start = line.find("{")
        if start < 0:
            raise ValueError("usage: modify [ID] JSON (a JSON object of the new arguments)")
        args = safe_loads(line[start:], lenient=True)
        if not isinstance(args, dict):
            raise ValueError("the new arguments must be a JSON object")
        head = shlex.split(line[:start])[1:]
        await self._resolve(head, "modified", lambda _tail: {"modified_args": args})

    async def _cmd_pause(self, _rest: list[str], _line: str) -> None:
        self.engine.pause()

    async def _cmd_resume(self, _rest: list[str], _line: str) -> None:
        self.engine.resume_run()

    async def _cmd_stop(self, _rest: list[str], _line: str) -> None:
        await self.engine.stop()

    async def _cmd_mode(self, rest: list[str], _line: str) -> None:
        if len(rest) != 1:
            raise ValueError("usage: mode auto|interactive|planning|implementation")
        value = rest[0].upper()
        if value in ("AUTO", "INTERACTIVE"):
            self.engine.set_mode(mode=value)
        elif value in ("PLANNING", "IMPLEMENTATION"):
            self.engine.set_mode(global_mode=value)
        else:
            raise ValueError(f"unknown mode {rest[0]!r}")
