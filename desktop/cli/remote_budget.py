"""`resume RUN --server URL` of a run paused over budget: raise the limit, then resume.

As in-process (desktop/cli/budget_gate.py), stdin's commands are read first, writing
nothing, until a ``budget`` line lifts the limit that paused the run (or a ``stop``
comes). Those ``budget`` lines go to the service (``PATCH /api/runs/ID/budget``) before
the run is resumed: resumed first, the run would meet the old limit and pause over
budget again, and the raise after it would leave it paused. When stdin ends first the
run is left as it was and the user is told whose budget, which limit and the command
that raises it.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from desktop.api.client import ApiClient, ApiError
from desktop.cli.budget_gate import read_until_raised, still_over
from desktop.cli.run_console import StdinLines, parse
from desktop.contract.commands import SetBudget
from desktop.contract.state import RunState
from desktop.views.node_ref import console_node


@dataclass
class Raised:
    """What the gate let through: stdin still being read, and the lines read past the
    raise, for the console to run once the run moves."""

    lines: StdinLines | None = None
    backlog: list[str] = field(default_factory=list)


async def raise_before_resume(client: ApiClient, run_id: str, before: dict[str, Any],
                              folder: str | None) -> Raised | None:
    """For a run paused over a limit that still holds: read stdin until a ``budget``
    line lifts it, and send those lines to the service. None when stdin ended first (said
    on stderr; nothing sent); a :class:`Raised` otherwise, also for a run paused for
    anything else (nothing read)."""
    state = RunState.model_validate(before)
    over = still_over(state)
    if over is None:
        return Raised()
    lines = None
    if sys.stdin is not None and not sys.stdin.closed:
        lines = StdinLines(asyncio.get_running_loop())
        if sys.stdin.isatty():
            print(f"{over.text(folder, _ref(client, run_id))}\ntype the `budget` command "
                  "(or Ctrl-D to leave the run paused)", file=sys.stderr, flush=True)
    gate = await read_until_raised(lines, state, over)
    if not gate.opened:
        print(gate.refusal(over, folder, _ref(client, run_id)), file=sys.stderr)
        return None
    commands = [c for c in map(parse, gate.raises) if isinstance(c, SetBudget)]
    try:
        await _send(client, run_id, state, commands)
    except ApiError as exc:
        if exc.code != "run_not_live":
            raise
        # a run no engine of the service holds takes no command before it is taken
        # over, which meets the old limit and pauses it again; raised then, it goes on
        # with the resume that follows
        await client.patch_run(run_id, status="running")
        await _send(client, run_id, state, commands)
    return Raised(lines, gate.then)


async def _send(client: ApiClient, run_id: str, state: RunState,
                commands: list[SetBudget]) -> None:
    for command in commands:
        node = console_node(state, command.node) if command.node else None
        await client.send(run_id, replace(command, node=node))


def _ref(client: ApiClient, run_id: str) -> str:
    return f"{run_id[:8]} --server {client.url}"


__all__ = ["Raised", "raise_before_resume"]
