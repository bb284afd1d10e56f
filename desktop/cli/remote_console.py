"""The terminal's stdin commands for a run of the service (`run/resume --server URL`).

Lines are parsed exactly as in-process (:func:`desktop.cli.run_console.parse`,
the typed commands of :mod:`desktop.contract.commands`); each command is then sent as
it is (``ApiClient.send``, its request derived from the command) instead of going into
an engine. Nodes named by key, label or id prefix
and approvals by a unique id prefix (or left out for the oldest) are resolved
against the state the event stream delivered. A command that needs something not
there yet (a step while a turn runs, an approval not yet requested) waits for it
while the run is busy, as in-process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from desktop.api.client import ApiError
from desktop.cli.choose_words import ChooseWords
from desktop.cli.console_resolve import asked_of, resolve, said
from desktop.cli.run_console import HELP, Decide, Local, MergeWords, parse_or_say
from desktop.contract.commands import (
    Chat,
    Pause,
    Resolve,
    Resume,
    SetBudget,
    SetMode,
    Step,
    Stop,
)
from desktop.contract.enums import RUN_ENDED
from desktop.runtime.control import CommandError, NotFound
from desktop.views.node_ref import console_node
from desktop.views.subflows import agent_turns

if TYPE_CHECKING:
    from desktop.cli.remote import RemoteRun
    from desktop.contract.state import RunState

POLL = 0.05


class RemoteConsole:
    """Runs command lines against a run of the service; ``say`` prints the answers."""

    def __init__(self, run: RemoteRun, say: Callable[[str], None],
                 status: Callable[[], None]) -> None:
        self.run = run
        self.say = say
        self.show_status = status

    @property
    def _client(self) -> Any:
        return self.run.client

    async def execute(self, line: str) -> None:
        """Run one command line; problems are printed, never raised."""
        read = parse_or_say(line, self.say)
        if read is None:
            return
        name, command = read
        try:
            await self._run(command)
        except (ApiError, ValueError, CommandError) as exc:
            self.say(f"{name}: {exc}")

    async def _run(self, command: Any) -> None:
        run_id = self.run.run_id
        match command:
            case Local(name="help"):
                self.say(HELP)
            case Local():
                self.show_status()
            case Step(node=ref):
                await self._step(self._node(ref) if ref else None)
            case Chat(node=ref) | SetBudget(node=str() as ref):
                # the service takes exact ids and keys; the label or id prefix a person
                # types is resolved here, where an ambiguous one can be shown
                await self._client.send(run_id, replace(command, node=self._node(ref)))
            case Decide() | MergeWords() | ChooseWords():
                await self._resolve(command)
            case Stop():
                await self.stop()
            case Pause() | Resume() | SetMode() | SetBudget():
                await self._client.send(run_id, command)
            case _:
                raise ValueError("not available through the service")

    # --- waiting while the run is busy ----------------------------------------------------

    def _busy(self) -> bool:
        """A turn runs, or (AUTO) one is about to start for a queued message: the
        engine's ``moving``. A turn held by an approval does not move on its own: it waits
        for a person, who may be this very console (a mistyped id must be said, not
        waited on for ever)."""
        state = self.run.state
        if state is None or self.run.status in RUN_ENDED:
            return False
        held = {p.node_id for p in state.pending_approvals.values()}
        return any(node not in held for node in agent_turns(state)) or (
            self.run.status == "running" and str(state.mode) == "AUTO"
            and any(state.inboxes.values()))

    async def _when_busy_wait(self, attempt: Callable[[], Awaitable[Any]]) -> Any:
        """Try ``attempt``; while it is refused and the run is busy, wait and try again."""
        while True:
            try:
                return await attempt()
            except NotFound:
                if not self._busy():
                    raise
            except ApiError as exc:
                if exc.status not in (404, 409) or not self._busy():
                    raise
            await asyncio.sleep(POLL)

    async def _until(self, done: Callable[[RunState], bool]) -> None:
        """Until the stream's state satisfies ``done``, the run ends, or nothing changes
        for 30 s."""
        while (state := self.run.state) is not None and self.run.status not in RUN_ENDED:
            if done(state):
                return
            self.run.changed.clear()  # no await since the check: no change is missed
            try:
                await asyncio.wait_for(self.run.changed.wait(), 30)
            except TimeoutError:
                return

    async def _until_started(self, node_id: str, turns_before: int) -> None:
        """After a step: until the stream shows the turn (so `step; approve` works)."""
        await self._until(lambda state: node_id in state.running_turns
                          or state.turns.get(node_id, 0) > turns_before)

    async def _until_closed(self, approval_id: str) -> None:
        """After a decision: until the stream shows the request closed. Otherwise the next
        command, or the end of the input, would meet the run as it was before (a request
        still pending: "the run waits for input")."""
        await self._until(lambda state: approval_id not in state.pending_approvals)

    # --- commands ----------------------------------------------------------------------------

    def _node(self, ref: str) -> str:
        if self.run.state is None:
            raise ValueError(f"no node matches {ref!r}: the run's state is not known yet")
        return console_node(self.run.state, ref)

    def _label(self, node_id: str) -> str:
        node = self.run.state.nodes.get(node_id) if self.run.state else None
        return node.label if node else node_id[:8]

    async def _step(self, node: str | None) -> None:
        turns = dict(self.run.state.turns) if self.run.state else {}
        answer = await self._when_busy_wait(
            lambda: self._client.send(self.run.run_id, Step(node)))
        chosen = (answer or {}).get("nodeId") or node or ""
        self.say(f"step: {self._label(chosen)}")
        await self._until_started(chosen, turns.get(chosen, 0))

    async def _resolve(self, line: Decide | MergeWords | ChooseWords) -> None:
        """Decide the approval the line names, as the in-process console does
        (desktop/cli/console_resolve.py); said once the stream shows it closed."""
        async def attempt() -> Resolve:
            pending = self.run.state.pending_approvals.values() if self.run.state else ()
            command = resolve(line, asked_of(pending))
            await self._client.send(None, command)
            return command

        command = await self._when_busy_wait(attempt)
        await self._until_closed(command.approval)
        self.say(said(command))

    async def stop(self, _reason: str = "stopped by the user") -> None:
        """Stop the run (``stop`` and Ctrl-C)."""
        try:
            await self._client.send(self.run.run_id, Stop())
        except ApiError as exc:
            self.say(f"stop: {exc}")
