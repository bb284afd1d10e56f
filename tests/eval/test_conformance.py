"""`check artifacts`: the example conforms; each broken MUST is one located violation;
garbage is a violation, never a crash."""

import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli import main
from desktop.eval.conformance import check_artifacts
from desktop.eval.evaluate import evaluate
from tests.eval.evalkit import EXAMPLE, flow, run, suite, version_dirs


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished evaluation with an ok case and a runner_error with a kept body."""
    import asyncio

    base = tmp_path_factory.mktemp("conformance")
    s = suite(base / "s.suite.yaml", [{"id": "good", "task": "list the files"},
                                      {"id": "crash", "task": "crash now"}])
    good = [{"shell": "ls"}, {"say": "done"}, {"done": True}]
    a = flow(base / "a.flow.yaml", good)
    b = flow(base / "b.flow.yaml", {"when": [{"inboxContains": "crash",
                                              "steps": [{"fail": "boom"}]}],
                                    "default": good})
    out = base / "out"
    asyncio.run(run(s, a, b, out))
    evaluate(out)
    return out


@pytest.fixture
def copy(results: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(results, target)
    return target


def _new(copy: Path) -> Path:
    return version_dirs(copy, "new")[0]


def _edit(path: Path, change) -> None:
    data = orjson.loads(path.read_bytes())
    change(data)
    path.write_bytes(orjson.dumps(data))


def test_a_fresh_evaluation_conforms(results: Path, capsys) -> None:
    assert check_artifacts(results) == []
    assert main(["check", "artifacts", str(results)]) == 0
    assert "ok (artifact contract v1)" in capsys.readouterr().out
    assert check_artifacts(version_dirs(results, "new")[0]) == []


def test_the_example_with_its_report_conforms(tmp_path: Path) -> None:
    import asyncio

    from desktop.eval.report import write_report

    out = tmp_path / "out"
    asyncio.run(run(EXAMPLE / "string-utils.suite.yaml", EXAMPLE / "baseline.flow.yaml",
                    EXAMPLE / "new.flow.yaml", out, case_ids=["clamp"]))
    write_report(out)
    assert check_artifacts(out) == []


def test_each_broken_must_is_reported(copy: Path, capsys) -> None:
    new = _new(copy)
    rel = f"new/{new.name}"
    _edit(new / "run.json", lambda d: d.pop("runner_version"))
    _edit(new / "good.json", lambda d: d["proposed_actions"][0]["evidence_refs"].append(
        {"kind": "tool_result", "call_id": "nowhere"}))
    body = next((new / "assets" / "crash").glob("full_body.txt"))
    body.write_bytes(b"changed")
    (new / "crash.json").rename(new / "renamed.json")
    (new / "extra.json").write_text("{not json")
    violations = check_artifacts(copy)
    text = "\n".join(violations)
    assert f"{rel}/run.json: runner_version: missing — it is required" in text
    assert f"{rel}/good.json: " in text and "no tool_result event has call_id 'nowhere'" in text
    assert f"{rel}/renamed.json: case_id: 'crash' does not match the file name" in text
    assert f"{rel}/crash.json: missing — run.json selects this case" not in text  # renamed
    assert f"{rel}/extra.json: not JSON" in text
    assert f"{rel}/assets/manifest.json: items." in text and "size_bytes" in text
    assert main(["check", "artifacts", str(copy)]) == 1
    assert len(capsys.readouterr().out.strip().splitlines()) == len(violations)


@pytest.mark.parametrize("field", ["status", "case_id", "schema_version", "version"])
def test_a_missing_field_is_called_missing(copy: Path, field: str) -> None:
    from desktop.eval.reader import read_version

    new = _new(copy)
    _edit(new / "good.json", lambda d: d.pop(field))
    text = "\n".join(check_artifacts(copy))
    assert f"new/{new.name}/good.json: {field}: missing" in text, text
    assert "must be 'ok' or 'runner_error'" not in text and "Field required" not in text
    if field in ("case_id", "schema_version"):
        problems = "\n".join(read_version("new", new).problems)
        assert f"good.json: {field}: missing" in problems, problems


def test_run_json_without_schema_version_is_called_missing(copy: Path) -> None:
    from desktop.eval.reader import read_version

    new = _new(copy)
    _edit(new / "run.json", lambda d: d.pop("schema_version"))
    problems = "\n".join(read_version("new", new).problems)
    assert "run.json: schema_version: missing (must be 'run.v1')" in problems


def test_missing_body_and_absolute_paths(copy: Path) -> None:
    new = _new(copy)
    case = orjson.loads((new / "crash.json").read_bytes())
    (new / case["runner_failure"]["full_body_saved_to"]).unlink()
    _edit(new / "good.json", lambda d: d.update(run_folder=str(copy / "runs")))
    text = "\n".join(check_artifacts(copy))
    assert "runner_failure.full_body_saved_to: assets/crash/full_body.txt does not exist" in text
    assert f"new/{new.name}/good.json: holds the result folder's absolute path" in text
    (new / "run.json").unlink()
    assert f"new/{new.name}/run.json: missing" in "\n".join(check_artifacts(copy))


def test_not_a_result_folder(tmp_path: Path, capsys) -> None:
    assert main(["check", "artifacts", str(tmp_path / "none")]) == 2
    assert main(["check", "artifacts", str(tmp_path)]) == 2
    assert "holds no run.json" in capsys.readouterr().err


json_like = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(
                                ["schema_version", "case_id", "status", "version", "events",
                                 "proposed_actions", "final_output", "runner_failure", "items",
                                 "href", "type", "ts", "x"]), inner, max_size=5)),
    max_leaves=15)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=200), json_like.map(orjson.dumps)),
       st.sampled_from(["run.json", "good.json", "zz.json", "evaluation.json",
                        "assets/manifest.json", "assets/crash/full_body.meta.json"]))
def test_garbage_files_are_violations_not_crashes(results: Path, tmp_path_factory, data,
                                                  name) -> None:
    target = tmp_path_factory.mktemp("garbage") / "copy"
    shutil.copytree(results, target, ignore=shutil.ignore_patterns("runs"))
    new = _new(target)
    (new / name).parent.mkdir(parents=True, exist_ok=True)
    (new / name).write_bytes(data)
    violations = check_artifacts(target)
    assert all(isinstance(v, str) and ": " in v for v in violations)
    evaluate(target, write=False)  # the evaluator reads the same garbage without crashing
