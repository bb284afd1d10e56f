"""`python -m bench --only x --update` rewrites the tables of the benches it ran and keeps
the note written by hand below each of them; the summary counts tables, not notes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bench.__main__ as bench_main
from bench import summary
from bench.__main__ import report, update
from bench.sections import TIMING, note, sections

INFO = {"date": "2026-11-27 09:00 UTC", "load average at start": "0.5 0.4 0.3"}
LATER = {"date": "2026-11-28 10:00 UTC", "load average at start": "1.5 1.4 1.3"}

notes = st.lists(st.from_regex(r"[A-Za-z`][A-Za-z0-9 ,.`()|-]{0,60}[A-Za-z.`)]",
                               fullmatch=True), min_size=1, max_size=5).map("\n".join)


def row(name: str, value: float, ok: bool) -> dict:
    """One bench row with a target."""
    return {"name": name, "value": value, "unit": "s", "reference": None, "ratio": None,
            "target": "< 1 s", "ok": ok}


def with_notes(text: str, written: dict[str, str]) -> str:
    """``text`` with a note written by hand at the end of some of its sections."""
    for name, prose in written.items():
        timing = TIMING.search(text, text.index(f"## {name}\n"))
        text = f"{text[:timing.end()]}\n\n{prose}{text[timing.end():]}"
    return text


@given(first=notes, second=notes)
def test_an_updated_section_keeps_its_note_and_the_others_stay_as_they_were(
        first: str, second: str) -> None:
    runs = {"bench_a": ([row("a", 2.0, False)], 1.0), "bench_b": ([row("b", 0.5, True)], 1.0),
            "bench_c": ([row("c", 0.2, True)], 1.0)}
    text = with_notes(report(runs, False, None, INFO), {"bench_a": first, "bench_b": second})
    assert note(sections(text)["bench_a"]) == first

    again = update(text, {"bench_a": ([row("a", 0.4, True)], 2.0),
                          "bench_c": ([row("c", 3.0, False)], 2.0)}, False, LATER)

    found = sections(again)
    assert note(found["bench_a"]) == first  # rewritten, its note kept
    assert "| a | 0.4 | s |" in found["bench_a"] and "| a | 2 | s |" not in found["bench_a"]
    assert note(found["bench_b"]) == second  # not run: as it was
    assert note(found["bench_c"]) == ""  # had none, gets none
    assert "3 targets: 2 met, 1 missed" in again
    assert {t.name: t.met for t in summary.kept(found)} == {"a": True, "b": True, "c": False}


def test_a_new_section_gets_no_note_and_a_row_quoted_in_a_note_is_no_target() -> None:
    quoted = "Before this change the row read:\n| a | 2 | s | - | - | < 1 s | **NO** |"
    runs = {"bench_a": ([row("a", 0.4, True)], 1.0)}
    text = with_notes(report(runs, False, None, INFO), {"bench_a": quoted})

    again = update(text, {"bench_new": ([row("n", 0.1, True)], 1.0)}, False, LATER)

    assert note(sections(again)["bench_new"]) == ""
    assert note(sections(again)["bench_a"]) == quoted
    assert "2 targets: 2 met, 0 missed" in again


def test_the_command_keeps_the_note_in_the_file(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    results = tmp_path / "RESULTS.md"
    runs = {"bench_a": ([row("a", 2.0, False)], 1.0)}
    results.write_text(with_notes(report(runs, False, None, INFO), {"bench_a": "Why: disk."}))
    monkeypatch.setattr(bench_main, "discover", lambda only: ["bench_a"])
    monkeypatch.setattr(bench_main, "run_module", lambda name, quick: ([row("a", 0.3, True)], 1.0))

    bench_main.main(["--only", "a", "--update", "--output", str(results)])

    section = sections(results.read_text())["bench_a"]
    assert "| a | 0.3 | s |" in section
    assert note(section) == "Why: disk."


@given(cpu=st.text(st.characters(blacklist_categories=["Cs", "Cc"]), max_size=40))
def test_an_updated_section_says_on_which_cpu_it_was_measured(cpu: str) -> None:
    runs = {"bench_a": ([row("a", 2.0, False)], 1.0), "bench_b": ([row("b", 0.5, True)], 1.0)}
    text = report(runs, False, None, INFO)
    again = update(text, {"bench_a": ([row("a", 0.4, True)], 2.0)}, False,
                   {**LATER, "cpu": f"Intel(R) Xeon(R) {cpu}"})
    found = sections(again)
    stamp = TIMING.search(found["bench_a"])[0]
    assert stamp.startswith("(2.0 s; measured 2026-11-28 10:00 UTC on Intel Xeon")
    assert stamp.endswith(", load average at start 1.5 1.4 1.3)")
    [kept] = [t for t in summary.kept(found) if t.name == "a"]
    assert kept.met and "Intel Xeon" in kept.when
