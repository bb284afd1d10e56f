"""Who decided a request, in the product's words, in one place.

A resolution's ``by`` (and a ``choice.made``'s) records where a decision came from: the
client a person used (``gui``, ``cli``/``terminal``, ``api`` for a client that does not
say which it is, desktop/contract/client_origin.py; ``user`` in logs from before the service told
them apart), the run's policy, the engine
letting a request go, a test, or, for a best-of-N choice, the judge node's key. Those
are the log's names, not the reader's: every place a decision is shown (the
Conversation, the transcript, ``runs events``, the console of ``agent-canvas run``)
words them through :func:`decider`, so the same decision reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desktop.views.tool_calls import ENGINE, WITHDRAWN

A_PERSON = "a person"

PEOPLE: Mapping[str, str] = {
    "gui": f"{A_PERSON} in the app",
    "cli": f"{A_PERSON} in the terminal",
    "terminal": f"{A_PERSON} in the terminal",
    "api": f"{A_PERSON} through the API",
    # logs from before the service recorded which client a decision came from
    "user": A_PERSON,
}
"""The ``by`` values that are a person's decision, and where they made it."""

OTHERS: Mapping[str, str] = {
    ENGINE: "the engine",
    "policy": "the run's policy",
    "test": "a test",
}
"""The ``by`` values that are not a person."""


def by_person(by: Any) -> bool:
    """Whether ``by`` is a person's decision (a missing ``by`` is: the contract's default
    for a command is the user)."""
    return not by or by in PEOPLE


def decider(by: Any) -> str:
    """``a person in the app``, ``a person``, ``the run's policy``, ``the engine``; a
    name this module does not know as it is."""
    if not by:
        return A_PERSON
    text = str(by)
    return PEOPLE.get(text) or OTHERS.get(text) or text


def decision_text(resolution: Mapping[str, Any]) -> str:
    """A decision on a request, with who made it: ``refused by a person in the app
    (why)``, ``approved by the run's policy``, ``withdrawn (why)`` when the engine let
    the request go (nobody said no)."""
    status = str(resolution.get("status") or "?")
    by = resolution.get("by")
    why = f" ({resolution['reason']})" if resolution.get("reason") else ""
    if status == WITHDRAWN or (status == "denied" and by == ENGINE):
        return f"{WITHDRAWN}{why}"
    word = "refused" if status == "denied" else status
    return f"{word} by {decider(by)}{why}"


def chosen_text(index: Any, by: Any) -> str:
    """A best-of-N choice: ``attempt 2 chosen by a person in the terminal``, or ``by the
    judge KEY`` when a judge node (named by its key) chose."""
    known = not by or str(by) in PEOPLE or str(by) in OTHERS
    return f"attempt {index} chosen by {decider(by) if known else f'the judge {by}'}"
