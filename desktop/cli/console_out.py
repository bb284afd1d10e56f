"""Where the CLI's tables and lines go: the terminal at its width, or, when piped, lines
that never wrap (a script reading ``runs list | grep`` gets one run per line)."""

from __future__ import annotations

from rich.console import Console

PIPED_WIDTH = 10_000
"""Wide enough that no row wraps; tables still take only the width their cells need."""


def out_console() -> Console:
    """A console on stdout: the terminal's width, else :data:`PIPED_WIDTH`."""
    console = Console()
    return console if console.is_terminal else Console(width=PIPED_WIDTH)
