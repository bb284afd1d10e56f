"""Long names cut short before they reach a widget: Qt measures, wraps and lays out
every character it is given, so a workflow named with a million characters would
freeze the window, and one of a few hundred would push everything else aside."""

from __future__ import annotations

NAME_CHARS = 500
"""The most of a name a title, tab, cell or tooltip is given: more than any of them
shows whole, and few enough that measuring it costs nothing."""

ELLIPSIS = "…"


def clipped(text: str, limit: int = NAME_CHARS) -> str:
    """``text`` when it has at most ``limit`` characters, else its start with "…"."""
    return text if len(text) <= limit else text[:limit - 1] + ELLIPSIS
