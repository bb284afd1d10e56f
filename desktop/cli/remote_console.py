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
from desktop.cli.choose_words import ChooseWords, pick
from desktop.cli.merge_words import CLAUSES, merge_choice, split_approval
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
from desktop.runtime.control import CommandError
from desktop.views.node_ref import console_approval, console_node
from desktop.views.subflows import agent_turns

if TYPE_CHECKING:
    from desktop.cli.remote import RemoteRun
    from desktop.contract.state import RunState

POLL = 0.05


class NotYet(Exception):
    """What the command needs is not there (yet)."""


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
        except (ApiError, NotYet, ValueError, CommandError) as exc:
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
            case Decide():
                await self._decide(command)
            case MergeWords():
                await self._merge(command)
            case ChooseWords():
                await self._choose(command)
            case Stop():
                await self.stop()
            case Pause() | Resume() | SetMode() | SetBudget():
                await self._client.send(run_id, command)
            case _:
                raise ValueError("not available through the service")

    # --- waiting while the run is busy ----------------------------------------------------

    def _busy(self) -> bool:
        """A turn runs, or (AUTO) one is about to start for a queued message."""
        state = self.run.state
        if state is None or self.run.status in RUN_ENDED:
            return False
        return bool(agent_turns(state)) or (
            self.run.status == "running" and str(state.mode) == "AUTO"
            and any(state.inboxes.values()))

    async def _when_busy_wait(self, attempt: Callable[[], Awaitable[Any]]) -> Any:
        """Try ``attempt``; while it is refused and the run is busy, wait and try again."""
        while True:
            try:
                return await attempt()
            except NotYet:
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

    def _approval(self, decide: Decide) -> tuple[str, list[str]]:
        """The approval a decision names now (a unique id prefix first, else the oldest),
        and the words after its id."""
        pending = list(self.run.state.pending_approvals) if self.run.state else []
        words = list(decide.words)
        if words:
            # ValueError (an ambiguous prefix) is said at once; waiting would not settle it
            approval = console_approval(pending, words[0])
            if approval is not None:
                return approval, words[1:]
            if not decide.words_are_reason:
                raise NotYet(f"no pending approval matches {words[0]!r}")
        if not pending:
            raise NotYet("no approval is pending")
        return pending[0], words

    async def _decide(self, decide: Decide) -> None:
        async def attempt() -> str:
            approval_id, words = self._approval(decide)
            pending = self.run.state.pending_approvals if self.run.state else {}
            asked = pending.get(approval_id)
            merge = asked is not None and asked.merge is not None
            await self._client.send(None, decide.command(approval_id, words, merge))
            return approval_id

        approval_id = await self._when_busy_wait(attempt)
        await self._until_closed(approval_id)
        self.say(f"{decide.status}: {approval_id[:8]}")

    async def _merge(self, command: MergeWords) -> None:
        async def attempt() -> str:
            pending = self.run.state.pending_approvals if self.run.state else {}
            merges = {a: p.merge for a, p in pending.items() if p.merge is not None}
            approval, words = split_approval(list(command.words), list(merges))
            if approval is None and words[0].lower() not in CLAUSES:
                raise NotYet(f"no pending merge approval matches {words[0]!r}")
            if approval is None:
                if not merges:
                    raise NotYet("no merge approval is pending")
                approval = next(iter(merges))
            request = merges[approval]
            choice = merge_choice(words, request.to_json_dict() if request else {})
            await self._client.send(None, Resolve(approval, "approved", merge=choice))
            return approval

        approval_id = await self._when_busy_wait(attempt)
        await self._until_closed(approval_id)
        self.say(f"merged: {approval_id[:8]}")

    async def _choose(self, command: ChooseWords) -> None:
        async def attempt() -> tuple[str, int]:
            pending = self.run.state.pending_approvals if self.run.state else {}
            choices = [a for a, p in pending.items() if p.choice is not None]
            try:
                approval, index = pick(command, choices)
            except LookupError as exc:
                raise NotYet(str(exc)) from None
            if approval is None:
                raise NotYet("no choice approval is pending")
            await self._client.send(None, Resolve(approval, "approved", choice=index))
            return approval, index

        approval_id, index = await self._when_busy_wait(attempt)
        await self._until_closed(approval_id)
        self.say(f"chose attempt {index}: {approval_id[:8]}")

    async def stop(self, _reason: str = "stopped by the user") -> None:
        """Stop the run (``stop`` and Ctrl-C)."""
        try:
            await self._client.send(self.run.run_id, Stop())
        except ApiError as exc:
            self.say(f"stop: {exc}")
