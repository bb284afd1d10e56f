"""Wall seconds as the CLI and the service give them out: to the millisecond.

The reducer adds up turn and run times as floats, so a sum such as 0.1 + 0.2 comes out
as 0.30000000000000004; the log and state.json keep what was folded, and only what is
printed or handed to scripts is rounded (timestamps in the log are milliseconds, so
nothing real is lost): ``runs list/show --json`` and the run list's rows, which
``GET /api/runs`` sends, round with this one function.
"""

from __future__ import annotations

from typing import Any

WALL_KEY = "wallSec"
DIGITS = 3


def rounded_wall(value: Any) -> Any:
    """``value`` (JSON-ready data) with every ``wallSec`` number, at any depth, rounded to
    the millisecond; everything else as it was."""
    if isinstance(value, dict):
        return {key: round(item, DIGITS)
                if key == WALL_KEY and type(item) in (int, float) else rounded_wall(item)
                for key, item in value.items()}
    if isinstance(value, list):
        return [rounded_wall(item) for item in value]
    return value
