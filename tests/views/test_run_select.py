"""Which runs a clean-up picks: an age as typed (30m, 12h, 7d, 2w), since the run's last
event; only runs whose result was applied; both at once; never a live run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.views.run_select import RunChoice, chosen, parse_age

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
SPANS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1),
         "w": timedelta(weeks=1)}


@given(count=st.integers(1, 10_000), unit=st.sampled_from(sorted(SPANS)),
       upper=st.booleans())
def test_an_age_is_a_count_and_a_unit(count: int, unit: str, upper: bool) -> None:
    typed = f"{count}{unit.upper() if upper else unit}"
    assert parse_age(typed) == count * SPANS[unit]


@pytest.mark.parametrize("typed", ["", "7", "d", "0d", "-1d", "1.5d", "7 days", "7y", "1d2h"])
def test_what_is_no_age_is_refused_with_the_form(typed: str) -> None:
    with pytest.raises(ValueError, match="as 30m, 12h, 7d or 2w"):
        parse_age(typed)


@pytest.mark.parametrize("typed", ["99999999999w", "9" * 40 + "d", "99999999999999m"])
def test_an_age_longer_than_any_is_refused_with_a_shorter_one_to_give(typed: str) -> None:
    with pytest.raises(ValueError, match="longer than any run can be old"):
        parse_age(typed)


def row(run_id: str, ago: timedelta | None, *, applied: bool = False,
        live: bool = False) -> dict:
    stamp = (NOW - ago).isoformat().replace("+00:00", "Z") if ago is not None else None
    return {"id": run_id, "updatedAt": stamp, "live": live,
            "result": {"branch": "canvas/x/a", "applied": [{"to": "tree"}] if applied else []}}


ROWS = [row("fresh", timedelta(hours=1)), row("old", timedelta(days=9)),
        row("old-applied", timedelta(days=9), applied=True),
        row("fresh-applied", timedelta(minutes=5), applied=True),
        row("old-live", timedelta(days=30), applied=True, live=True),
        row("no-time", None, applied=True)]


@pytest.mark.parametrize(("choice", "picked"), [
    (RunChoice(older_than=timedelta(days=7)), ["old", "old-applied"]),
    (RunChoice(applied=True), ["old-applied", "fresh-applied", "no-time"]),
    (RunChoice(older_than=timedelta(days=7), applied=True), ["old-applied"]),
    (RunChoice(older_than=timedelta(minutes=1)), ["fresh", "old", "old-applied",
                                                  "fresh-applied"]),
])
def test_a_choice_picks_the_runs_that_match_all_of_it_and_never_a_live_one(
        choice: RunChoice, picked: list[str]) -> None:
    assert chosen(ROWS, choice, NOW) == picked
