"""`eval evaluate` applies the rules `check artifacts` applies to a case file (its name is
its case_id, its version is its side's, its shape is v1's): a file that breaks one is
left out with a warning naming the file, the field and the fix, and never displaces the
genuine case file."""

import tempfile
from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.eval.conformance import check_artifacts
from desktop.eval.evaluate import evaluate
from desktop.eval.reader import read_version
from tests.eval.test_evaluate import _case


def _folder(root: Path, side: str, cases: dict[str, dict]) -> Path:
    folder = root / side / "r1"
    folder.mkdir(parents=True)
    (folder / "run.json").write_bytes(orjson.dumps({
        "schema_version": "run.v1", "run_id": "r1", "version": side,
        "generated_at": "2026-01-01T00:00:00Z", "base_url": "scripted://local",
        "cases_path": "../../suite.yaml", "out_dir": "../..",
        "selected_case_ids": ["clamp", "readme"], "runner_version": "test"}))
    for name, data in cases.items():
        (folder / name).write_bytes(orjson.dumps(data))
    return folder


def test_a_misnamed_file_is_left_out_not_the_genuine_one(tmp_path: Path) -> None:
    _folder(tmp_path, "baseline", {"clamp.json": _case("clamp", "baseline", "pass"),
                                   "readme.json": _case("readme", "baseline", "pass")})
    impostor = _case("readme", "baseline", "fail")  # says readme and baseline, in new/
    new = _folder(tmp_path, "new", {"clamp.json": impostor,
                                    "readme.json": _case("readme", "new", "pass")})
    comparison = evaluate(tmp_path)
    rows = {row["case_id"]: row for row in comparison["cases"]}
    assert rows["readme"]["new"]["runs"] == [
        {"run": "new/r1", "status": "ok", "passed": True, "file": "new/r1/readme.json"}]
    assert rows["readme"]["verdict"] == "unchanged_pass"
    text = "\n".join(comparison["problems"])
    assert ("new/r1/clamp.json: case_id: 'readme' does not match the file name — name the "
            "file readme.json, or set case_id to 'clamp'; the file is left out") in text
    assert ("new/r1/clamp.json: version: 'baseline' but it is in new/ — move the file into "
            "a baseline/ version directory, or set version to 'new'") in text
    assert "new/r1/readme.json" not in text
    assert "clamp" in comparison["missing"]
    assert (new / "readme.json").is_file()


def test_a_case_file_of_the_wrong_shape_is_left_out(tmp_path: Path) -> None:
    _folder(tmp_path, "baseline", {"clamp.json": _case("clamp", "baseline", "pass")})
    broken = {**_case("clamp", "new", "pass"), "events": "notalist",
              "final_output": {"content_type": "text", "content": 5}}
    _folder(tmp_path, "new", {"clamp.json": broken})
    comparison = evaluate(tmp_path)
    text = "\n".join(comparison["problems"])
    assert "new/r1/clamp.json: events: Input should be a valid list — make it a list; " \
           "the file is left out" in text
    assert "new/r1/clamp.json: final_output.content: Input should be a valid string or " \
           "a valid dictionary" in text
    assert "clamp" in comparison["missing"]


variants = st.fixed_dictionaries({
    "case_id": st.sampled_from(["clamp", "readme", "", 5]),
    "version": st.sampled_from(["new", "baseline", "old"]),
    "status": st.sampled_from(["ok", "runner_error", "done"]),
    "events": st.sampled_from([[], "notalist", [{"type": "tool_call", "ts": 1}],
                               [{"type": "future", "ts": 2}]]),
    "content": st.sampled_from(["", 5, {"a": 1}, None]),
    "drop": st.sampled_from([None, "schema_version", "case_id", "version", "proposed_actions",
                             "final_output"]),
})


@settings(max_examples=80, deadline=None)
@given(variants)
def test_evaluate_keeps_a_case_file_exactly_when_check_artifacts_accepts_it(v) -> None:
    data = _case("clamp", "new", "pass")
    data.update(case_id=v["case_id"], version=v["version"], status=v["status"],
                events=v["events"])
    data["final_output"]["content"] = v["content"]
    if v["drop"]:
        data.pop(v["drop"])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _folder(root, "baseline", {})
        folder = _folder(root, "new", {"clamp.json": data})
        violations = [x for x in check_artifacts(root) if x.startswith("new/r1/clamp.json: ")
                      and "missing — run.json selects" not in x]
        version = read_version("new", folder)
    kept = "clamp" in version.cases
    assert kept == (not violations), (violations, version.problems)
    if not kept:  # the same problems, each with "left out"
        assert [p.removesuffix("; the file is left out") for p in version.problems] == \
            violations
