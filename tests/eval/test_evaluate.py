"""The evaluator over any outcomes: pass rates, intervals and verdicts match the samples."""

import tempfile
from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.eval.evaluate import evaluate
from desktop.eval.stats import verdict, wilson

CHECK = {"index": 0, "type": "fileExists", "label": "file",
         "spec": {"type": "fileExists", "path": "x"}}


def _case(case_id: str, side: str, outcome: str) -> dict:
    """A minimal case file: ``pass``/``fail`` on its one check, or a runner error."""
    if outcome == "error":
        return {"schema_version": "case.v1", "case_id": case_id, "version": side,
                "status": "runner_error", "checks": [CHECK],
                "runner_failure": {"class": "timeout", "url": "scripted://local",
                                   "attempt": 1, "body_snippet": None,
                                   "full_body_saved_to": None}}
    return {"schema_version": "case.v1", "case_id": case_id, "version": side, "status": "ok",
            "proposed_actions": [], "final_output": {"content_type": "text", "content": ""},
            "events": [{"type": "some_future_event", "ts": 1}],  # ignored, as v1 says
            "checks": [{**CHECK, "result": {"passed": outcome == "pass", "detail": ""}}]}


def _write(root: Path, outcomes: dict[str, dict[str, list[str]]]) -> None:
    for side in ("baseline", "new"):
        repeats = max(len(o[side]) for o in outcomes.values())
        for r in range(repeats):
            folder = root / side / f"r{r + 1}"
            folder.mkdir(parents=True)
            for case_id, by_side in outcomes.items():
                if r < len(by_side[side]):
                    (folder / f"{case_id}.json").write_bytes(
                        orjson.dumps(_case(case_id, side, by_side[side][r])))


samples = st.lists(st.sampled_from(["pass", "fail", "error"]), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]),
                       st.fixed_dictionaries({"baseline": samples, "new": samples}),
                       min_size=1))
def test_rates_and_verdicts_follow_the_samples(outcomes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write(root, outcomes)
        comparison = evaluate(root)
    rows = {row["case_id"]: row for row in comparison["cases"]}
    assert set(rows) == set(outcomes)
    for case_id, by_side in outcomes.items():
        counts = {s: (by_side[s].count("pass"), len(by_side[s])) for s in by_side}
        for side, (passes, n) in counts.items():
            row = rows[case_id][side]
            assert (row["passes"], row["samples"]) == (passes, n)
            assert row["ci95"] == [round(x, 4) for x in wilson(passes, n)]
            assert row["errors"].get("timeout", 0) == by_side[side].count("error")
        expected = verdict(*counts["baseline"], *counts["new"])
        assert rows[case_id]["verdict"] == expected
        assert (case_id in comparison["regressions"]) == (expected == "regressed")
        assert (case_id in comparison["fixes"]) == (expected == "fixed")
    total = {s: sum(o[s].count("pass") for o in outcomes.values()) /
             sum(len(o[s]) for o in outcomes.values()) for s in ("baseline", "new")}
    assert comparison["summary"]["pass_rate"] == {s: round(v, 4) for s, v in total.items()}
