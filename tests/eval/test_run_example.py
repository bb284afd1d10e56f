"""The shipped example end to end: both sides, the contract, the verdicts, portability."""

import re
import shutil
import tempfile
from pathlib import Path

import orjson
import pytest

from desktop.eval.evaluate import evaluate
from desktop.eval.portable import PROMPTS
from tests.eval.evalkit import EXAMPLE, assert_contract, case_file, run, version_dirs


@pytest.fixture(scope="module")
def example_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import asyncio

    out = tmp_path_factory.mktemp("example") / "out"
    asyncio.run(run(EXAMPLE / "string-utils.suite.yaml", EXAMPLE / "baseline.flow.yaml",
                    EXAMPLE / "new.flow.yaml", out, concurrency=3))
    return out


def test_every_artifact_validates_against_the_contract(example_out: Path) -> None:
    for side in ("baseline", "new"):
        [version] = version_dirs(example_out, side)
        assert_contract(version)
        run_json = orjson.loads((version / "run.json").read_bytes())
        assert run_json["version"] == side and run_json["base_url"] == "scripted://local"
        assert run_json["selected_case_ids"] == ["slugify", "clamp", "readme"]
        assert run_json["stats"]["cases_completed"] == 3
        assert {p.stem for p in version.glob("*.json")} >= {"run", "slugify", "clamp",
                                                            "readme"}


def test_each_case_is_a_run_the_run_views_can_open(example_out: Path) -> None:
    from desktop.views.run_list import list_runs

    case = case_file(example_out, "new", "clamp")
    [version] = version_dirs(example_out, "new")
    run_folder = (version / case["run_folder"]).resolve()
    assert (run_folder / "events.jsonl").is_file()
    assert run_folder.name in {r.id for r in list_runs(example_out)}


def test_new_fixes_slugify_and_breaks_clamp(example_out: Path) -> None:
    comparison = evaluate(example_out)
    assert comparison["fixes"] == ["slugify"] and comparison["regressions"] == ["clamp"]
    clamp = next(c for c in comparison["cases"] if c["case_id"] == "clamp")
    assert clamp["changes"]["risk"] == {"baseline": "low", "new": "high", "direction": "up",
                                        "tags_added": ["delete_recursive"], "tags_removed": []}
    failing = [c["label"] for c in clamp["new"]["checks"] if c["passes"] == 0]
    assert failing == ["unit tests pass", "no recursive delete"]


def test_proposed_actions_carry_risk_and_resolvable_evidence(example_out: Path) -> None:
    case = case_file(example_out, "new", "clamp")
    rm = next(a for a in case["proposed_actions"] if "rm -rf" in a["params"].get("cmd", ""))
    assert (rm["action_type"], rm["risk_level"], rm["risk_tags"]) == (
        "shell", "high", ["delete_recursive"])
    event_ref = next(r for r in rm["evidence_refs"] if r["kind"] == "event")
    index = int(event_ref["id"].removeprefix("events[").removesuffix("]"))
    assert case["events"][index]["call_id"] in {r.get("call_id") for r in rm["evidence_refs"]}
    assert case["events"][-1]["type"] == "final_output"
    stamps = [e["ts"] for e in case["events"]]
    assert stamps == sorted(stamps) and all(isinstance(t, int) for t in stamps)


def _machine_paths(out: Path) -> set[str]:
    """Every absolute path of this machine an evaluation's files might name."""
    import sys

    from desktop.runtime.agent_env import PACKAGE_ROOT

    paths = {out, out.resolve(), EXAMPLE.resolve(), Path.home(), Path(sys.prefix),
             Path(sys.base_prefix), Path(sys.executable), Path(PACKAGE_ROOT),
             Path(tempfile.gettempdir()).resolve()}
    return {str(p) for p in paths if len(str(p)) > 1}


def _user_name() -> str:
    import getpass

    return getpass.getuser()


def _portable(out: Path, path: Path) -> bool:
    """Whether ``path`` is one of the files an evaluation keeps portable: everything but
    the kept engine runs, whose prompts only are (their records, logs and workspaces
    stay as the run wrote them)."""
    parts = path.relative_to(out).parts
    if parts[0] != "runs":
        return True
    return parts[2:3] == ("agents",) and path.name in PROMPTS


def test_no_absolute_path_or_user_name_in_any_portable_file(example_out: Path) -> None:
    """Every file the evaluation writes itself (case files, assets, run.json, the
    evaluation, the report, the copied inputs) and the kept runs' prompts."""
    from desktop.eval.report import write_report

    evaluate(example_out)
    write_report(example_out)
    roots = _machine_paths(example_out)
    # the user name as a path component or a login (user@host); as a bare word it may be
    # English or CSS (``:root``)
    name = re.escape(_user_name())
    user = re.compile(rf"[/\\]{name}(?![\w.-])|(?<![\w.-]){name}@[\w-]")
    walked = 0
    for path in example_out.rglob("*"):
        if not path.is_file() or not _portable(example_out, path):
            continue
        walked += 1
        raw = path.read_bytes()
        assert b"\0" not in raw, f"{path} is binary"
        text = raw.decode("utf-8", errors="replace")
        assert not [root for root in roots if root in text], path
        assert not user.search(text), (path, user.search(text))
    assert walked > 30 and list(example_out.glob("runs/*/agents/*/prompt.blocks.json"))


def test_the_report_opens_after_the_folder_is_moved(example_out: Path, tmp_path: Path
                                                   ) -> None:
    from desktop.eval.report import write_report

    copy = tmp_path / "before"
    shutil.copytree(example_out, copy, symlinks=True)
    report = write_report(copy)
    moved = tmp_path / "after" / "elsewhere"
    moved.parent.mkdir()
    shutil.move(copy, moved)
    html = _assert_self_contained(moved / report.relative_to(copy), {str(copy), str(tmp_path)})
    assert 'id="case-clamp"' in html
    again = _assert_self_contained(write_report(moved), {str(copy), str(tmp_path)})
    assert 'id="case-clamp"' in again


def test_a_copied_result_folder_evaluates_the_same(example_out: Path, tmp_path: Path) -> None:
    first = evaluate(example_out, write=False)
    copy = tmp_path / "elsewhere"
    shutil.copytree(example_out, copy, ignore=shutil.ignore_patterns("runs"))
    second = evaluate(copy)
    keep = ("regressions", "fixes", "unchanged_failures", "summary")
    assert {k: first[k] for k in keep} == {k: second[k] for k in keep}
    assert (copy / "comparison.json").is_file()


def test_exported_json_schemas_accept_the_files(example_out: Path) -> None:
    from jsonschema import Draft202012Validator

    from desktop.cli.schema import all_sources
    from desktop.contract.schema import build_schemas

    schemas = build_schemas(all_sources())
    run_schema = Draft202012Validator(schemas["artifact.run.schema.json"])
    case_schema = Draft202012Validator(schemas["artifact.case.schema.json"])
    for side in ("baseline", "new"):
        [version] = version_dirs(example_out, side)
        run_schema.validate(orjson.loads((version / "run.json").read_bytes()))
        for case_id in ("slugify", "clamp", "readme"):
            case_schema.validate(orjson.loads((version / f"{case_id}.json").read_bytes()))


def _links(html: str) -> list[str]:
    import re

    return re.findall(r'(?:href|src)="([^"]*)"', html)


def _assert_self_contained(report: Path, roots: set[str]) -> str:
    html = report.read_text(encoding="utf-8")
    assert not any(root in html for root in roots)
    assert "<link" not in html and "@import" not in html and "url(" not in html
    for link in _links(html):
        assert not link.startswith(("http:", "https:", "//", "/", "file:")), link
        if not link.startswith("#"):
            assert (report.parent / link).exists(), link
    return html


def test_report_is_one_self_contained_file(example_out: Path, tmp_path: Path) -> None:
    from desktop.eval.report import write_report

    report = write_report(example_out)
    html = _assert_self_contained(report, {str(example_out), str(tmp_path), str(EXAMPLE)})
    assert html.count('class="badge b-regressed"') >= 2 and 'id="case-clamp"' in html
    assert "rm -rf build __pycache__" in html and "delete_recursive" in html
    anchors = {a for a in _links(html) if a.startswith("#")}
    for anchor in anchors:
        assert f'id="{anchor[1:]}"' in html, anchor


def test_report_of_a_copied_folder_and_elsewhere(example_out: Path, tmp_path: Path) -> None:
    from desktop.eval.report import write_report

    copy = tmp_path / "moved" / "results"
    shutil.copytree(example_out, copy)
    report = write_report(copy)
    _assert_self_contained(report, {str(example_out), str(tmp_path)})
    other = write_report(copy, tmp_path / "reports" / "r.html")
    html = _assert_self_contained(other, {str(example_out), str(tmp_path)})
    assert "../moved/results/new/" in html
