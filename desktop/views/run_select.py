"""Which runs a clean-up takes (`agent-canvas runs delete --older-than AGE --applied`):
picked from the rows of the run list (desktop/views/run_list.py, ``GET /api/runs``), so a
local data folder and a service choose alike. A live run is never picked."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

_AGE = re.compile(r"^(\d+)([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_age(text: str) -> timedelta:
    """``30m``, ``12h``, ``7d`` or ``2w`` as a span; ValueError saying the form."""
    found = _AGE.match(text.strip().lower())
    if found is None or int(found.group(1)) == 0:
        raise ValueError(f"{text!r} is no age: give a number and a unit, as 30m, 12h, 7d "
                         "or 2w")
    try:
        return timedelta(**{_UNITS[found.group(2)]: int(found.group(1))})
    except OverflowError:  # more days than a timedelta holds
        raise ValueError(f"{text!r} is longer than any run can be old: give a shorter "
                         "age, as 52w") from None


@dataclass(frozen=True)
class RunChoice:
    """What picks a run: last changed longer ago than ``older_than``, and (``applied``)
    its result applied to the user's repository; None and False pick every run."""

    older_than: timedelta | None = None
    applied: bool = False

    def picks(self, row: dict[str, Any], now: datetime) -> bool:
        """Whether the run of ``row`` is one to take."""
        if row.get("live"):
            return False
        if self.applied and not ((row.get("result") or {}).get("applied")):
            return False
        if self.older_than is not None:
            changed = _when(row.get("updatedAt") or row.get("createdAt"))
            if changed is None or now - changed < self.older_than:
                return False
        return True


def chosen(rows: Iterable[dict[str, Any]], choice: RunChoice, now: datetime) -> list[str]:
    """The ids of the runs of ``rows`` that ``choice`` picks, in the rows' order."""
    return [str(row["id"]) for row in rows if choice.picks(row, now)]


def _when(stamp: Any) -> datetime | None:
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None


__all__ = ["RunChoice", "chosen", "parse_age"]
