"""Replay over events held in memory (a run opened through the API) finds each event by
its seq, with or without gaps (the GUI's replay of such a run: tests/ui/run/
test_remote_service.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.replay import HeldEvents


@given(st.sets(st.integers(1, 400), max_size=60), st.integers(-5, 410))
def test_an_event_is_found_by_its_seq_or_none(seqs: set[int], asked: int) -> None:
    events = [{"seq": n, "type": "x"} for n in sorted(seqs)]
    held = HeldEvents(events)
    found = held.get(asked)
    assert (found is not None and found["seq"] == asked) == (asked in seqs)
    assert held.last_seq() == (max(seqs) if seqs else 0)
