"""An evaluation lacking a case file (missing, unreadable, or a whole side) is incomplete:
comparison.json, the summary and the report say so and name the files, and
`eval evaluate --fail-on-regression` exits 3 instead of passing the gate."""

import io
import shutil
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.cli import main
from desktop.cli.eval import EXIT_INCOMPLETE, print_summary
from desktop.eval.evaluate import evaluate
from tests.eval.test_evaluate import _case
from tests.eval.test_evaluate_rules import _folder

CASE_IDS = ("clamp", "readme")


def _results(root: Path, new: dict[str, str]) -> Path:
    """Both cases pass on baseline; on new each case is ``new[case_id]``: pass, fail,
    gone (no file) or torn (the first bytes of its file only)."""
    _folder(root, "baseline", {f"{c}.json": _case(c, "baseline", "pass") for c in CASE_IDS})
    folder = _folder(root, "new", {})
    for case_id, what in new.items():
        body = orjson.dumps(_case(case_id, "new", "fail" if what == "fail" else "pass"))
        if what == "torn":
            body = body[:60]
        if what != "gone":
            (folder / f"{case_id}.json").write_bytes(body)
    return root


@settings(max_examples=40, deadline=None)
@given(st.fixed_dictionaries({c: st.sampled_from(["pass", "fail", "gone", "torn"])
                              for c in CASE_IDS}))
def test_the_files_the_evaluation_lacks_are_named(new: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        comparison = evaluate(_results(Path(tmp), new))
    lacking = {(e["file"], e["why"]) for e in comparison["incomplete"]}
    expected = {(f"new/r1/{c}.json", "missing" if w == "gone" else "unreadable")
                for c, w in new.items() if w in ("gone", "torn")}
    assert lacking == expected
    assert comparison["summary"]["complete"] is (not expected)
    assert comparison["summary"]["incomplete"] == len(expected)
    out = io.StringIO()
    print_summary(comparison, out)
    assert ("INCOMPLETE" in out.getvalue()) is bool(expected)
    for file, _ in expected:
        assert file in out.getvalue()


@pytest.mark.parametrize("damage", ["torn", "gone", "no side"])
def test_fail_on_regression_fails_an_incomplete_evaluation(tmp_path: Path, damage: str,
                                                           capsys) -> None:
    # Complete, new would have regressed on clamp; with clamp's file damaged the rest passes.
    root = _results(tmp_path, {"clamp": "pass" if damage == "no side" else damage,
                               "readme": "pass"})
    if damage == "no side":
        shutil.rmtree(root / "new")
    assert main(["eval", "evaluate", str(root)]) == 0  # no gate asked for: it only says so
    assert main(["eval", "evaluate", str(root), "--fail-on-regression"]) == EXIT_INCOMPLETE
    out = capsys.readouterr().out
    assert "INCOMPLETE: " in out and "pass rate over the case files present:" in out
    if damage == "no side":
        assert "new/ has no version directory: no new result for clamp, readme" in out
        assert "new - (0 of 2)" in out
    else:
        assert f"{'unreadable' if damage == 'torn' else 'missing'}: new/r1/clamp.json" in out
        assert "new 100% (1 of 2)" in out
    from desktop.eval.report import write_report

    html = write_report(root).read_text(encoding="utf-8")
    assert "<h2>INCOMPLETE: " in html and "case files missing or unreadable" in html


def test_a_regression_still_exits_1_and_a_complete_one_is_not_flagged(tmp_path: Path,
                                                                      capsys) -> None:
    root = _results(tmp_path, {"clamp": "fail", "readme": "pass"})
    assert main(["eval", "evaluate", str(root), "--fail-on-regression"]) == 1
    assert "INCOMPLETE" not in capsys.readouterr().out
    comparison = orjson.loads((root / "comparison.json").read_bytes())
    assert comparison["summary"]["complete"] is True and comparison["incomplete"] == []
    (next((root / "new").iterdir()) / "readme.json").unlink()
    assert main(["eval", "evaluate", str(root), "--fail-on-regression"]) == 1


def test_the_help_names_the_exit_code() -> None:
    from desktop.cli import eval as eval_cli

    assert "3 an incomplete evaluation" in eval_cli.__doc__


def test_the_apps_evaluation_view_says_an_evaluation_is_incomplete(tmp_path: Path) -> None:
    from desktop.eval.browse import load_evaluation

    root = _results(tmp_path, {"clamp": "torn", "readme": "pass"})
    assert load_evaluation(root).subtitle.startswith(
        "INCOMPLETE: 1 case file missing or unreadable. ")
    whole = _results(tmp_path / "whole", {"clamp": "pass", "readme": "pass"})
    assert "INCOMPLETE" not in load_evaluation(whole).subtitle
