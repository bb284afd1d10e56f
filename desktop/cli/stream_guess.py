"""Telling a stream read with the wrong ``--provider`` from one the parser understood.

A parser keeps every JSON line it does not know as an ``agent.raw`` event, so a claude
stream read as codex gives a run of raw lines and no message, tool call or error. When
not one line mapped to a contract event, the stream is not the named agent's; the raw
lines (kept whole in those events) are fed to the other parsers to name the one that
recognises them.
"""

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from desktop.providers.parsers import PARSERS, parser_for
from desktop.wording import plural

UNMAPPED = frozenset({"agent.raw", "node.log"})
"""What a parser makes of a line it does not recognise."""

SAMPLE = 2000
"""Raw lines the other parsers are tried on: enough to recognise a stream, and bounded."""


def mapped(events: Iterable[dict[str, Any]]) -> int:
    """How many of ``events`` are contract events, not lines kept as they came."""
    return sum(1 for event in events if event.get("type") not in UNMAPPED)


def recognising_provider(events: list[dict[str, Any]], tried: str) -> str | None:
    """The provider whose parser maps the most of the raw lines in ``events`` (at least
    one), other than ``tried``; None when none does."""
    lines = [orjson.dumps(event["line"]) for event in events
             if event.get("type") == "agent.raw" and isinstance(event.get("line"), dict)]
    lines = lines[:SAMPLE]
    best, best_count = None, 0
    for provider in sorted(PARSERS):
        if provider == tried:
            continue
        parser = parser_for(provider)
        count = 0
        for line in lines:
            count += mapped(parser.feed(line))
        count += mapped(parser.finish())
        if count > best_count:
            best, best_count = provider, count
    return best


def unrecognised(path: Path, provider: str, events: list[dict[str, Any]],
                 objects: int) -> str | None:
    """Why the ``objects`` JSON lines of ``path`` are not a ``provider`` stream (not one
    became a contract event), with the provider to try instead; None when some did."""
    if objects == 0 or mapped(events):
        return None
    lines = ("its one JSON line is not" if objects == 1
             else f"not one of its {plural(objects, 'JSON line')} is")
    other = recognising_provider(events, provider)
    if other:
        hint = f"it looks like a {other} stream: try --provider {other}"
    else:
        others = ", ".join(name for name in sorted(PARSERS) if name != provider)
        hint = (f"no other reader ({others}) recognises it either; give the stdout of a "
                f"{provider} run with JSON output")
    return f"{path}: {lines} a {provider} event (no message, tool call or error); {hint}"
