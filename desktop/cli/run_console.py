"""Terminal commands for a live run, typed or piped one per line on stdin.

``step [node]``, ``chat NODE TEXT``, ``approve [ID]``, ``deny [ID] [reason]``,
``modify [ID] JSON``, ``budget [NODE] tokens=N cost=USD wall=SEC``,
``merge [ID] ours|theirs [FILE...] | edit FILE[=FROM] | agent``
(desktop/cli/merge_words.py), ``choose [ID] N`` (desktop/cli/choose_words.py),
``pause``, ``resume``, ``stop``, ``mode auto|interactive|planning|implementation``,
``status``, ``help``. Nodes are named by key, label or id prefix; approvals by a
unique id prefix, or left out for the oldest.
Commands that need something not there yet (a step while a turn still runs,
an approval not yet requested) wait for it while the run is busy, so piped
scripts behave the same however fast the agents are.

Each line becomes a typed command of :mod:`desktop.runtime.control` and goes
through its ``execute``, as the HTTP API's requests do.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from desktop.cli.choose_words import ChooseWords, parse_choose
from desktop.cli.console_resolve import NO_MERGE, asked_of, resolve, said
from desktop.cli.merge_words import USAGE
from desktop.contract.enums import RUN_ENDED
from desktop.contract.state import BUDGET_MAX
from desktop.disk.safe_json import loads as safe_loads
from desktop.runtime.control import (
    Chat,
    Command,
    CommandError,
    Conflict,
    Invalid,
    NotFound,
    Outcome,
    Pause,
    Resolve,
    Resume,
    SetBudget,
    SetMode,
    Step,
    Stop,
    execute,
)
from desktop.runtime.engine import Engine
from desktop.views.node_ref import console_node

HELP = """commands:
  step [NODE]            run the next pending turn (or NODE's) in INTERACTIVE mode
  chat NODE TEXT         send a message to a node (it takes a turn with it)
  approve [ID]           approve a pending tool call (ID prefix; default: oldest)
  deny [ID] [REASON]     deny a pending tool call
  modify [ID] JSON       run a pending tool call with new arguments
  merge [ID] ours|theirs [FILE...]   resolve a merge that conflicts: one side per file
  merge [ID] edit FILE[=FROM]        ... FILE as edited in the worktree (or FROM's text)
  merge [ID] agent                   ... or hand the files to the node's agent
  deny [ID]              undo a merge that conflicts (then merge by hand and resume)
  choose [ID] N          pick attempt N of a best-of-N turn to go on
  pause | resume | stop  pause new turns, continue, or stop the run
  budget [NODE] tokens=N cost=USD wall=SEC   raise the run's (or NODE's) budget;
                         then `resume` after the run paused for it
  mode MODE              auto, interactive, planning or implementation
  status                 show the nodes and pending approvals
  help                   this text"""

POLL = 0.05
TERMINAL_WORD = "terminal"


class StdinLines:
    """Lines of stdin delivered to the loop; a daemon thread does the blocking reads."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stream=None,
                 on_line: Callable[[str], None] | None = None) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.eof = False
        self._loop = loop
        self._stream = stream or sys.stdin
        # told at once, on the reading thread (the live view, which may come later)
        self.on_line = on_line
        threading.Thread(target=self._read, name="stdin-commands", daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self._stream:
                if (told := self.on_line) is not None:
                    told(line)
                self._loop.call_soon_threadsafe(self.queue.put_nowait, line)
        except (OSError, ValueError):
            pass
        self._loop.call_soon_threadsafe(self.queue.put_nowait, None)


@dataclass(frozen=True)
class Decide:
    """``approve``/``deny``/``modify`` before the approval is known: the first word is an
    approval id prefix if one matches when the command runs, else part of the reason."""

    status: str
    words: tuple[str, ...] = ()
    modified_args: dict | None = None
    words_are_reason: bool = False

    def command(self, approval: str, words: list[str], merge: bool) -> Resolve:
        """The Resolve this decision means for ``approval`` (its full id), ``words`` being
        what the line says after the id; ``merge``: the approval is a merge that conflicts.
        Both consoles (in-process and through the service) decide with it; Invalid for an
        approve or modify of a merge."""
        if merge and self.status != "denied":
            raise Invalid(f"a merge that conflicts is resolved with `merge`, not "
                          f"`{'approve' if self.status == 'approved' else 'modify'}`; "
                          f"{USAGE}")
        reason = (" ".join(words) or "denied in the terminal") \
            if self.status == "denied" else None
        return Resolve(approval, self.status, self.modified_args, reason)


@dataclass(frozen=True)
class MergeWords:
    """``merge [ID] CLAUSE...``: resolve a merge approval (desktop/cli/merge_words.py)."""

    words: tuple[str, ...]


@dataclass(frozen=True)
class Local:
    """A command the console answers itself (``help``, ``status``)."""

    name: str


Line = Command | Decide | MergeWords | ChooseWords | Local
BUDGET_USAGE = "usage: budget [NODE] tokens=N cost=USD wall=SEC (one or more limits)"
_BUDGET_WORDS = {"tokens": ("max_tokens", int, "maxTokens"),
                 "cost": ("max_cost_usd", float, "maxCostUsd"),
                 "wall": ("max_wall_sec", float, "maxWallSec")}
_MODES = {"AUTO": "mode", "INTERACTIVE": "mode", "PLANNING": "global", "IMPLEMENTATION": "global"}


def parse_or_say(line: str, say: Callable[[str], None]) -> tuple[str, Line] | None:
    """The command word and the command a line asks for; None for a blank line, or after
    saying through ``say`` why it cannot be read."""
    try:
        words = shlex.split(line)
    except ValueError as exc:
        say(f"cannot parse {line.strip()!r}: {exc}")
        return None
    if not words:
        return None
    name = words[0].lower()
    try:
        parsed = parse(line)
    except ValueError as exc:
        say(str(exc) if str(exc).startswith("unknown command") else f"{name}: {exc}")
        return None
    return (name, parsed) if parsed is not None else None


def parse(line: str) -> Line | None:
    """The command a line asks for (None for a blank line); ValueError says what is wrong."""
    words = shlex.split(line)
    if not words:
        return None
    name, rest = words[0].lower(), words[1:]
    match name:
        case "help" | "status":
            return Local(name)
        case "step":
            return Step(rest[0] if rest else None)
        case "chat":
            if len(rest) < 2:
                raise ValueError("usage: chat NODE TEXT")
            text = line.split(None, 2)[2].strip()
            if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
                text = text[1:-1]
            return Chat(rest[0], text)
        case "approve":
            return Decide("approved", tuple(rest))
        case "deny":
            return Decide("denied", tuple(rest), words_are_reason=True)
        case "merge":
            if not rest:
                raise ValueError(USAGE)
            return MergeWords(tuple(rest))
        case "choose":
            return parse_choose(rest)
        case "modify":
            start = line.find("{")
            if start < 0:
                raise ValueError("usage: modify [ID] JSON (a JSON object of the new arguments)")
            args = safe_loads(line[start:], lenient=True)
            if not isinstance(args, dict):
                raise ValueError("the new arguments must be a JSON object")
            return Decide("modified", tuple(shlex.split(line[:start])[1:]), args)
        case "pause":
            return Pause()
        case "resume":
            return Resume()
        case "stop":
            return Stop()
        case "budget":
            return _budget(rest)
        case "mode":
            value = rest[0].upper() if len(rest) == 1 else ""
            if value not in _MODES:
                raise ValueError("usage: mode auto|interactive|planning|implementation")
            return SetMode(mode=value) if _MODES[value] == "mode" else SetMode(global_mode=value)
    raise ValueError(f"unknown command {name!r}; type `help`")


def _budget(words: list[str]) -> SetBudget:
    node = words[0] if words and "=" not in words[0] else None
    limits: dict[str, float] = {}
    for word in words[1 if node else 0:]:
        key, _, value = word.partition("=")
        if key.lower() not in _BUDGET_WORDS or not value:
            raise ValueError(BUDGET_USAGE)
        name, kind, field = _BUDGET_WORDS[key.lower()]
        try:
            number = kind(value.lstrip("$"))
        except ValueError:
            raise ValueError(f"{key}={value}: not a number; {BUDGET_USAGE}") from None
        most = BUDGET_MAX[field]
        if not 0 < number <= most:  # also refuses nan and inf
            raise ValueError(f"{key}={value}: a limit is above 0 and at most {most:,}")
        limits[name] = number
    if not limits:
        raise ValueError(BUDGET_USAGE)
    return SetBudget(node, **limits)


class Console:
    """Runs command lines against an engine; ``say`` prints their answers."""

    def __init__(self, engine: Engine, say: Callable[[str], None],
                 status: Callable[[], None]) -> None:
        self.engine = engine
        self.say = say
        self.show_status = status

    async def execute(self, line: str) -> None:
        """Run one command line; problems are printed, never raised."""
        read = parse_or_say(line, self.say)
        if read is None:
            return
        name, parsed = read
        if isinstance(parsed, Local):
            if parsed.name == "help":
                self.say(HELP)
            else:
                self.show_status()
            return
        try:
            command, outcome = await self._when_busy_wait(lambda: self._run(parsed))
        except CommandError as exc:
            self.say(f"{name}: {exc.message}")
            return
        if isinstance(command, Step) and outcome.node_id:
            self.say(f"step: {self.engine.state.nodes[outcome.node_id].label}")
        elif isinstance(command, Resolve):
            self.say(said(command))

    async def _run(self, parsed: Command | Decide | MergeWords | ChooseWords | None
                   ) -> tuple[Command, Outcome]:
        assert parsed is not None  # blank lines have no words
        if isinstance(parsed, Decide | MergeWords | ChooseWords):
            command: Command = self._resolve(parsed)
        elif isinstance(parsed, Step | Chat | SetBudget) and parsed.node:
            # the engine takes exact ids and keys; a label or id prefix is this console's
            command = replace(parsed, node=self._node(parsed.node))
        else:
            command = parsed
        return command, await execute(self.engine, command)

    def _node(self, ref: str) -> str:
        try:
            return console_node(self.engine.state, ref)
        except ValueError as exc:
            raise NotFound(str(exc), "nodeId") from None

    def _resolve(self, parsed: Decide | MergeWords | ChooseWords) -> Resolve:
        """The Resolve a decision line means now (desktop/cli/console_resolve.py)."""
        command = resolve(parsed, asked_of(self.engine.broker.pending()), self._no_merge)
        return replace(command, by=TERMINAL_WORD)

    def _no_merge(self) -> str:
        """Why ``merge`` has nothing to answer, and, for a merge withdrawn when the run
        was let go, which command asks it again (desktop/cli/merge_wait.py)."""
        if self._busy() or self.engine.run_dir is None:
            return NO_MERGE  # the console waits and tries again: no need to look yet
        from desktop.cli.merge_wait import merge_hint
        from desktop.views.reader import EventReader

        hint = merge_hint(self.engine.state, EventReader(self.engine.run_dir).iter_events())
        return f"{NO_MERGE}: {hint}" if hint else NO_MERGE

    def _busy(self) -> bool:
        return self.engine.moving()

    async def _when_busy_wait(self, attempt: Callable[[], Awaitable[tuple[Command, Outcome]]]
                              ) -> tuple[Command, Outcome]:
        """Try ``attempt``; while it finds nothing to act on and the run is busy, retry."""
        while True:
            try:
                return await attempt()
            except (NotFound, Conflict) as exc:
                if not self._busy() or self.engine.state.status in RUN_ENDED:
                    raise exc from None
            except Invalid:
                raise
            await asyncio.sleep(POLL)
