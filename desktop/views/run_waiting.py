"""What a live run waits on a person for, in a few words: the run toolbar's state.

Built from the same two sources the Approvals inbox lists for the run — its pending
approvals (gated calls, merges, best-of-N choices) and
:func:`~desktop.views.run_list.waiting_on_you` (a stall or a budget that paused it, a
failed turn, a Step it waits for) — so the toolbar and the inbox never disagree.
"""

from __future__ import annotations

from collections import Counter

from desktop.contract.enums import RUN_LIVE
from desktop.contract.state import RunState
from desktop.views.run_list import waiting_on_you
from desktop.wording import plural

WAITING = "waiting for you"
"""How the toolbar's state opens while the run needs a person."""

_APPROVALS = (("tool", "approval"), ("merge", "merge"), ("choice", "choice"))
_OTHERS = {"stall": "stalled", "budget": "over budget", "failed": "turn failed",
           "step": "press Step"}


def waiting_parts(state: RunState, *, step_named: bool = False) -> list[str]:
    """``["1 approval", "1 merge", "over budget"]``: what the run waits on a person for,
    approvals first as the inbox counts them (empty when nothing waits, or the run
    ended); ``step_named``: the caller already names the node Step runs next, so a Step
    awaited goes without its own words."""
    if str(state.status) not in RUN_LIVE:
        return []
    kinds = Counter(str(a.kind) for a in state.pending_approvals.values())
    parts = [plural(kinds[kind], noun) for kind, noun in _APPROVALS if kinds[kind]]
    others = Counter(str(item.get("kind")) for item in waiting_on_you(state))
    if step_named:
        others.pop("step", None)
    for kind, words in _OTHERS.items():
        if others[kind]:
            parts.append(words if others[kind] == 1 or kind != "failed"
                         else f"{others[kind]} turns failed")
    return parts


def waiting_text(state: RunState, *, step_named: bool = False) -> str | None:
    """``waiting for you · 1 approval`` (just ``waiting for you`` for a Step awaited whose
    node the caller names), or None when the run waits on nobody."""
    if str(state.status) not in RUN_LIVE or not (state.pending_approvals
                                                 or waiting_on_you(state)):
        return None
    parts = waiting_parts(state, step_named=step_named)
    return f"{WAITING} · {', '.join(parts)}" if parts else WAITING
