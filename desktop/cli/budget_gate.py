"""Resuming a run that paused over budget: not before something raises the limit.

A run paused by ``run.budget_exceeded`` pauses again the moment it resumes while the
limit that paused it still holds, and each such attempt would add a ``run.resumed`` and
a ``run.budget_exceeded`` to its log. So ``agent-canvas resume`` first reads the
commands on stdin, writing nothing: once a ``budget`` line raises that limit (or a
``stop`` asks to end the run) the run resumes, those budget lines applied before it
moves; when stdin ends first, the run stays as it was and the user is told whose
budget, which limit, the figures and the command that raises it.
"""

from __future__ import annotations

import copy
import sys
from dataclasses import dataclass
from typing import Any

from desktop.cli.run_console import StdinLines, parse_or_say
from desktop.cli.run_ref import run_ref
from desktop.contract.commands import RUN, SetBudget, Stop
from desktop.contract.enums import RunStatus
from desktop.contract.state import RunState
from desktop.runtime import budget
from desktop.views.node_ref import console_node
from desktop.wording import plural

_WORDS = {"maxTokens": ("tokens", "N"), "maxCostUsd": ("cost", "USD"),
          "maxWallSec": ("wall", "SEC")}
"""A limit's word in the console's ``budget`` command, and what its value stands for."""


@dataclass(frozen=True)
class OverBudget:
    """The limit that paused a run, still reached."""

    run_id: str
    limit: str
    """maxTokens, maxCostUsd or maxWallSec."""
    budget: float
    used: float
    node_id: str | None = None
    node_label: str = ""
    node_ref: str = ""
    """How the console's ``budget`` command names the node (its key)."""

    def _figure(self, value: float) -> str:
        if self.limit == "maxCostUsd":
            return f"${value:,.4f}"
        if self.limit == "maxWallSec":
            return f"{value:,.0f}s"
        return f"{value:,.0f}"

    def text(self, folder: str | None, ref: str | None = None) -> str:
        """Whose budget, which limit and the figures, and the commands that raise it;
        ``folder``: the ``--data-dir`` given, which the command needs too; ``ref``: how
        the command names the run instead (``ID --server URL`` for a run of a service)."""
        word, value = _WORDS.get(self.limit, (self.limit, "N"))
        whose = f"the budget of node {self.node_label}" if self.node_id else \
            "the run's budget"
        target = f"{self.node_ref} " if self.node_id else ""
        body = (f'{{"nodeId": "{self.node_ref}", ' if self.node_id else "{") + \
            f'"{self.limit}": {value}}}'
        return (f"run {self.run_id[:8]} is paused over budget: {whose} is reached "
                f"({word} {self._figure(self.used)} of {self._figure(self.budget)}), so "
                f"resuming would pause it again at once; raise the limit above "
                f"{self._figure(self.used)} and it goes on: "
                f"`echo 'budget {target}{word}={value}' | agent-canvas resume "
                f"{ref or run_ref(self.run_id, folder)}` (or, for a run a service holds, "
                f"PATCH {RUN.format(run_id=self.run_id)}/budget with {body})")


def still_over(state: RunState) -> OverBudget | None:
    """The limit that paused ``state``'s run over budget while it still holds (resuming
    would pause the run again at once); None for a run paused for anything else, or
    whose limit was raised since."""
    paused = state.budget_exceeded
    if state.status != RunStatus.PAUSED or not paused:
        return None
    node_id = paused.get("nodeId") if type(paused.get("nodeId")) is str else None
    found = budget.exceeded(state.to_json_dict(), node_id)
    if found is None:
        return None
    whose = found.get("nodeId")
    node = state.nodes.get(whose or "")
    return OverBudget(state.id, str(found["limit"]), float(found["budget"]),
                      float(found["used"]), whose if node else None,
                      node.label if node else "", (node.key or node.id[:8]) if node else "")


def _raised(state: dict[str, Any], command: SetBudget, node_id: str | None
            ) -> dict[str, Any]:
    """``state`` (wire form) as it is once ``command`` has set its limits."""
    state = copy.deepcopy(state)
    if node_id is None:
        state["budget"] = {**(state.get("budget") or {}), **command.limits()}
    else:
        config = state.setdefault("nodeConfigs", {}).setdefault(node_id, {})
        config["budget"] = {**(config.get("budget") or {}), **command.limits()}
    return state


@dataclass
class Gate:
    """What stdin said before the run may resume."""

    opened: bool
    raises: list[str]
    """The ``budget`` lines, to run before the engine moves (else it pauses first)."""
    then: list[str]
    """Every other line, in order, to run once it moves."""

    def refusal(self, over: OverBudget, folder: str | None, ref: str | None = None) -> str:
        """What `resume` says when stdin ended with the limit still reached (``ref``: as
        :meth:`OverBudget.text`)."""
        notes = []
        if self.raises:
            notes.append(f"the {plural(len(self.raises), '`budget` line')} read "
                         f"{'leaves' if len(self.raises) == 1 else 'leave'} it reached")
        if self.then:
            notes.append(f"{plural(len(self.then), 'other command')} read not run")
        return f"{over.text(folder, ref)}; nothing was written" + \
            (f" ({'; '.join(notes)})" if notes else "")


async def read_until_raised(lines: StdinLines | None, state: RunState,
                            over: OverBudget) -> Gate:
    """Read ``lines`` until a ``budget`` line lifts the limit that paused ``state``'s run
    (or a ``stop`` comes); lines that cannot be read are said on stderr, as the console
    says them, and dropped."""
    gate = Gate(False, [], [])
    if lines is None:
        return gate

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    wire = state.to_json_dict()
    while (line := await lines.queue.get()) is not None:
        read = parse_or_say(line, say)
        if read is None:
            continue
        name, command = read
        if isinstance(command, SetBudget):
            try:
                node_id = console_node(state, command.node) if command.node else None
            except ValueError as exc:
                say(f"{name}: {exc}")
                continue
            gate.raises.append(line)
            wire = _raised(wire, command, node_id)
            if budget.exceeded(wire, over.node_id) is None:
                gate.opened = True
                return gate
            continue
        gate.then.append(line)
        if isinstance(command, Stop):
            gate.opened = True
            return gate
    return gate


__all__ = ["Gate", "OverBudget", "read_until_raised", "still_over"]
