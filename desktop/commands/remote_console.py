"""The terminal's stdin commands for a run of the service (`run/resume --server URL`).

The same words as desktop/commands/run_console.py (``step``, ``chat``, ``approve``,
``deny``, ``modify``, ``pause``, ``resume``, ``stop``, ``mode``, ``status``,
``help``), each sent as one API call. Nodes are named by key, label or id prefix
and approvals by a unique id prefix (or left out for the oldest), resolved
against the state the event stream delivered. A command that needs something
not there yet (a step while a turn runs, an approval not yet requested) waits
for it while the run is busy, as in-process.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from desktop.api.client import ApiError
from desktop.commands.run_console import HELP
from desktop.runtime.routing import find_node

if TYPE_CHECKING:
    from desktop.commands.remote import RemoteRun

POLL = 0.05
TERMINAL = ("completed", "failed", "stopped")


class NotYet(Exception):
    """What the command needs is not there (yet)."""


class RemoteConsole:
    """Runs command lines against a run of the service; ``say`` prints the answers."""

    def __init__(self, run: RemoteRun, say: Callable[[str], None],
                 status: Callable[[], None]) -> None:
        self.run = run
        self.say = say
        self.show_status = status
        self._words: dict[str, Callable[[list[str], str], Awaitable[None]]] = {
            "help": self._help, "status": self._status, "step": self._step,
            "chat": self._chat, "approve": self._approve, "deny": self._deny,
            "modify": self._modify, "pause": self._pause, "resume": self._resume,
            "stop": self._stop, "mode": self._mode}

    @property
    def _client(self) -> Any:
        return self.run.client

    def _busy(self) -> bool:
        """A turn runs, or (AUTO) one is about to start for a queued message."""
        state = self.run.state
        if state is None or self.run.status in TERMINAL:
            return False
        return bool(state.running_turns) or (
            self.run.status == "running" and str(state.mode) == "AUTO"
            and any(state.inboxes.values()))

    async def _until_started(self, node_id: str, turns_before: int) -> None:
        """After a step: until the stream shows the turn (so `step; approve` works)."""
        while self.run.state is not None and self.run.status not in TERMINAL:
            state = self.run.state
            if node_id in state.running_turns or state.turns.get(node_id, 0) > turns_before:
                return
            self.run.changed.clear()
            try:
                await asyncio.wait_for(self.run.changed.wait(), 30)
            except TimeoutError:
                return

    async def _when_busy_wait(self, attempt: Callable[[], Awaitable[Any]]) -> Any:
        """Try ``attempt``; while it is refused and the run is busy, wait and try again."""
        while True:
            try:
                return await attempt()
            except NotYet:
                if not self._busy():
                    raise
            except ApiError as exc:
                if exc.status != 409 or not self._busy():
                    raise
            await asyncio.sleep(POLL)

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
        handler = self._words.get(name)
        if handler is None:
            self.say(f"unknown command {name!r}; type `help`")
            return
        try:
            await handler(rest, line)
        except (ApiError, NotYet, ValueError) as exc:
            self.say(f"{name}: {exc}")

    def _node(self, ref: str) -> str:
        node_id = find_node(self.run.state, ref) if self.run.state is not None else None
        if node_id is None:
            raise ValueError(f"no node matches {ref!r}")
        return node_id

    def _label(self, node_id: str) -> str:
        node = self.run.state.nodes.get(node_id) if self.run.state else None
        return node.label if node else node_id[:8]

    async def _help(self, _rest: list[str], _line: str) -> None:
        self.say(HELP)

    async def _status(self, _rest: list[str], _line: str) -> None:
        self.show_status()

    async def _step(self, rest: list[str], _line: str) -> None:
        node = self._node(rest[0]) if rest else None
        turns = dict(self.run.state.turns) if self.run.state else {}
        answer = await self._when_busy_wait(lambda: self._client.step(self.run.run_id, node))
        chosen = (answer or {}).get("nodeId") or node or ""
        self.say(f"step: {self._label(chosen)}")
        await self._until_started(chosen, turns.get(chosen, 0))

    async def _chat(self, rest: list[str], line: str) -> None:
        if len(rest) < 2:
            raise ValueError("usage: chat NODE TEXT")
        text = line.split(None, 2)[2].strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1]
        await self._client.chat(self.run.run_id, self._node(rest[0]), text)

    def _approval(self, rest: list[str]) -> tuple[str, list[str]]:
        """The approval the words name (a unique id prefix first, else the oldest)."""
        pending = list(self.run.state.pending_approvals) if self.run.state else []
        if rest:
            hits = [a for a in pending if a.startswith(rest[0])]
            if len(hits) == 1:
                return hits[0], rest[1:]
        if not pending:
            raise NotYet("no approval is pending")
        return pending[0], rest

    async def _resolve(self, rest: list[str], status: str,
                       build: Callable[[list[str]], dict[str, Any]]) -> None:
        async def attempt() -> str:
            approval_id, tail = self._approval(rest)
            await self._client.resolve(approval_id, status, **build(tail))
            return approval_id

        approval_id = await self._when_busy_wait(attempt)
        self.say(f"{status}: {approval_id[:8]}")

    async def _approve(self, rest: list[str], _line: str) -> None:
        await self._resolve(rest, "approved", lambda _tail: {})

    async def _deny(self, rest: list[str], _line: str) -> None:
        await self._resolve(rest, "denied",
                            lambda tail: {"reason": " ".join(tail) or "denied in the terminal"})

    async def _modify(self, rest: list[str], line: str) -> None:
        start = line.find("{")
        if start < 0:
            raise ValueError("usage: modify [ID] JSON (a JSON object of the new arguments)")
        args = json.loads(line[start:])
        if not isinstance(args, dict):
            raise ValueError("the new arguments must be a JSON object")
        head = shlex.split(line[:start])[1:]
        await self._resolve(head, "modified", lambda _tail: {"modified_args": args})

    async def _pause(self, _rest: list[str], _line: str) -> None:
        await self._client.patch_run(self.run.run_id, status="paused")

    async def _resume(self, _rest: list[str], _line: str) -> None:
        await self._client.patch_run(self.run.run_id, status="running")

    async def _stop(self, _rest: list[str], _line: str) -> None:
        await self.stop("stopped by the user")

    async def stop(self, _reason: str) -> None:
        """Stop the run (Ctrl-C and ``stop``)."""
        try:
            await self._client.patch_run(self.run.run_id, status="stopped")
        except ApiError as exc:
            self.say(f"stop: {exc}")

    async def _mode(self, rest: list[str], _line: str) -> None:
        if len(rest) != 1:
            raise ValueError("usage: mode auto|interactive|planning|implementation")
        value = rest[0].upper()
        if value in ("AUTO", "INTERACTIVE"):
            await self._client.patch_run(self.run.run_id, mode=value)
        elif value in ("PLANNING", "IMPLEMENTATION"):
            await self._client.patch_run(self.run.run_id, global_mode=value)
        else:
            raise ValueError(f"unknown mode {rest[0]!r}")
