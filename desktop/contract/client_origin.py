"""Which of the product's clients is talking to the service: the app or the terminal.

Each request of :class:`desktop.api.client.ApiClient` says so in the
``X-Agent-Canvas-Client`` header, so a decision taken through the service is recorded
with where the person made it (desktop/views/deciders.py: "a person in the app", "a
person in the terminal"). The process declares itself once, at its start (the app, the
CLI); any other client (curl, a script) sends no header and its decisions read as made
"through the API". A client can name only these people, never the run's policy or the
engine: the service maps the header through :data:`DECIDERS` and refuses other values.
No HTTP library is imported here: the app declares itself before its first paint.
"""

from __future__ import annotations

HEADER = "X-Agent-Canvas-Client"
APP = "app"
TERMINAL = "terminal"
DECIDERS = {APP: "gui", TERMINAL: "cli"}
"""Header value -> the ``by`` a decision sent with it is recorded with."""
NO_HEADER = "api"
"""The ``by`` of a decision from a client that does not say which it is."""

_declared: list[str] = []


def declare(name: str) -> None:
    """This process is client ``name`` (:data:`APP` or :data:`TERMINAL`)."""
    if name not in DECIDERS:
        raise ValueError(f"unknown client {name!r}")
    _declared[:] = [name]


def declared() -> str | None:
    """The client this process declared itself, if it did."""
    return _declared[0] if _declared else None


def decider(header: str | None) -> str:
    """The ``by`` of a decision sent with ``header``; ValueError for a value the service
    does not know (a client cannot pass itself off as the policy or the engine)."""
    if header is None:
        return NO_HEADER
    found = DECIDERS.get(header.strip().lower())
    if found is None:
        known = ", ".join(sorted(DECIDERS))
        raise ValueError(f"{HEADER}: unknown client {header[:40]!r}; use one of {known}, "
                         "or leave the header out")
    return found


__all__ = [
    "APP",
    "DECIDERS",
    "HEADER",
    "NO_HEADER",
    "TERMINAL",
    "decider",
    "declare",
    "declared",
]
