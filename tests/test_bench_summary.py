"""`make bench`'s one summary of every target: the benches just run and the sections kept
from earlier runs, missed first, each saying when it was measured."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bench import summary
from bench.__main__ import fmt, report, sections

INFO = {"date": "2026-11-27 09:00 UTC", "load average at start": "0.5 0.4 0.3"}

row = st.fixed_dictionaries({
    "name": st.text(st.characters(codec="ascii", categories=("L", "N")), min_size=1,
                    max_size=12),
    "value": st.floats(0.001, 1e6), "unit": st.sampled_from(["s", "ms", "events/s"]),
    "reference": st.floats(0.001, 1e6) | st.none(), "ratio": st.floats(0.01, 100) | st.none(),
    "target": st.sampled_from(["< 50 ms", "ratio >= 0.9", "<= 1.11x | more"]) | st.none(),
    "ok": st.booleans() | st.none()})


@given(st.dictionaries(st.sampled_from(["bench_a", "bench_b", "bench_c"]),
                       st.lists(row, max_size=4), max_size=3))
def test_every_target_survives_a_rewrite_of_the_results(results) -> None:
    runs = {k: (rows, 1.0) for k, rows in results.items()}
    text = report(runs, False, None, INFO)
    stamp = f"{INFO['date']}, load average at start {INFO['load average at start']}"
    first = summary.fresh(runs, stamp, fmt)
    assert f"{len(first)} targets" in text
    # a later run of no bench keeps every section, and its summary still has them all
    again = summary.kept(sections(text))
    assert sorted((t.section, t.name, t.figure, t.target, str(t.met)) for t in again) == sorted(
        (t.section, t.name, t.figure, t.target, str(t.met)) for t in first)
    table = summary.table(first).splitlines()[2:]
    missed = [i for i, line in enumerate(table) if line.startswith("| **NO**")]
    assert missed == list(range(len(missed)))  # missed come first


def test_the_terminal_summary_names_each_target_and_its_time() -> None:
    runs = {"bench_store": ([{"name": "verify", "value": 9000.0, "unit": "rec/s",
                              "ratio": None, "target": ">= 10,000", "ok": False},
                             {"name": "no target", "value": 1.0, "unit": "s"}], 2.0)}
    lines = summary.lines(summary.fresh(runs, "today", fmt))
    assert lines == ["1 targets: 0 met, 1 missed",
                     "  MISSED store: verify: 9,000 rec/s (target >= 10,000; today)"]
