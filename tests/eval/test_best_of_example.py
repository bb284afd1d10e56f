"""The shipped best-of-N example: best-of-two against the same workflow with one attempt,
on the example suite, with the head to head in comparison.json, the text and the report."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from desktop.cli.eval import print_summary
from desktop.eval.evaluate import evaluate
from desktop.eval.report import write_report
from desktop.views.reader import EventReader
from tests.eval.evalkit import EXAMPLE, case_file, run, version_dirs


@pytest.fixture(scope="module")
def best_of_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("best-of") / "out"
    asyncio.run(run(EXAMPLE / "best-of-n.suite.yaml", EXAMPLE / "single-attempt.flow.yaml",
                    EXAMPLE / "best-of-two.flow.yaml", out, concurrency=3))
    return out


def choices(out: Path, case_id: str) -> list[int]:
    [version] = version_dirs(out, "new")
    folder = (version / case_file(out, "new", case_id)["run_folder"]).resolve()
    return [e["attemptIndex"] for e in EventReader(folder).iter_events()
            if e["type"] == "choice.made"]


def test_best_of_two_wins_where_one_attempt_fails_and_ties_elsewhere(best_of_out: Path
                                                                      ) -> None:
    comparison = evaluate(best_of_out)
    assert {c["case_id"]: c["head_to_head"] for c in comparison["cases"]} == {
        "slugify": "win", "clamp": "tie", "readme": "tie"}
    h2h = comparison["summary"]["head_to_head"]
    assert (h2h["wins"], h2h["ties"], h2h["losses"], h2h["win_rate"]) == (1, 2, 0, 0.6667)
    assert comparison["fixes"] == ["slugify"] and comparison["regressions"] == []
    # the judge kept the careful attempt where the quick one's tests failed
    assert choices(best_of_out, "slugify") == [2]
    assert choices(best_of_out, "clamp") == choices(best_of_out, "readme") == [1]
    slugify = next(c for c in comparison["cases"] if c["case_id"] == "slugify")
    tokens = slugify["changes"]["metrics"]["input_tokens"]
    assert tokens["new"] > 2 * tokens["baseline"], "two attempts and a judge cost more"


def test_the_text_and_the_report_give_the_win_rate(best_of_out: Path) -> None:
    out = io.StringIO()
    print_summary(evaluate(best_of_out), out)
    assert "head to head, Best of two against Single attempt: 1 win, 2 ties, 0 losses: " \
           "win rate 67% (95% CI 21%-94%)" in out.getvalue()
    html = write_report(best_of_out).read_text(encoding="utf-8")
    assert "win rate of Best of two against Single attempt" in html
    assert "67% <span" in html and "95% CI 21%&ndash;94%" in html
    assert html.count('class="badge b-win"') == 2  # the card and the slugify row
    assert html.count('class="badge b-tie"') == 4  # with the card's 0 losses
