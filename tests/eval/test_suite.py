"""Suite files: the example loads; every problem of a bad one is found at once, located."""

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.eval.suite import CHECK_TYPES, SuiteLoadError, load_suite, parse_suite
from tests.eval.evalkit import EXAMPLE, suite


def problems_of(path: Path) -> list[str]:
    with pytest.raises(SuiteLoadError) as info:
        load_suite(path)
    return [str(p) for p in info.value.problems]


def test_example_suite_loads_with_every_check_type_it_uses() -> None:
    loaded = load_suite(EXAMPLE / "string-utils.suite.yaml")
    assert [c.id for c in loaded.cases] == ["slugify", "clamp", "readme"]
    used = {check.type for case in loaded.cases for check in case.checks}
    assert {"command", "fileExists", "toolNotCalled", "toolCalled", "maxTurns",
            "outputContains"} <= used


def test_every_problem_is_reported_at_once_with_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.suite.yaml"
    path.write_text(
        "name: bad\n"
        "cases:\n"
        "  - id: a\n"
        "    task: do it\n"
        "    checks:\n"
        "      - type: comand\n"
        "        run: make\n"
        "      - type: outputMatches\n"
        "        pattern: '(['\n"
        "  - id: ../x\n"
        "    task: t\n"
        "    workspace: nowhere\n"
        "  - id: a\n"
        "    task: t\n"
        "    tagss: [x]\n", encoding="utf-8")
    found = problems_of(path)
    text = "\n".join(found)
    assert f"{path}:6: cases[0].checks[0].type: unknown check type 'comand'" in text
    assert "did you mean 'command'?" in text
    assert f"{path}:9: cases[0].checks[1].pattern: not a valid regular expression" in text
    assert f"{path}:10: cases[1].id: case id '../x' is not a safe file name" in text
    assert f"{path}:12: cases[1].workspace: workspace folder 'nowhere' not found" in text
    assert f"{path}:13: cases[2].id: duplicate case id 'a' (also cases[0])" in text
    assert f"{path}:15: cases[2].tagss: unknown field 'tagss' — did you mean 'tags'?" in text


@pytest.mark.parametrize("text, expected", [
    ("name: x\ncases: [\n", "malformed YAML"),
    ("name: !!python/object:os.system x\ncases: []\n", "YAML tag"),
    ("", "the file is empty"),
    ("- a\n- b\n", "a suite is a mapping of fields"),
    ("name: x\ncases: []\n", "cases"),
    ("name: x\nname: y\ncases: [{id: a, task: t}]\n", "duplicate key 'name'"),
    ("name: x\ncases: [{id: run, task: t}]\n", "reserved"),
    ("name: x\ncases: [{id: a, task: t, checks: [{path: x}]}]\n", "a check needs a `type`"),
    ("a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
     "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n", "aliases expand to more than"),
    ("name: " + "[" * 200 + "]" * 200 + "\n", "nested deeper than"),
])
def test_bad_documents_name_the_problem(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "s.suite.yaml"
    path.write_text(text, encoding="utf-8")
    assert any(expected in p for p in problems_of(path))


def test_missing_file_and_folder_are_clear(tmp_path: Path) -> None:
    assert problems_of(tmp_path / "none.suite.yaml") == [
        f"{tmp_path / 'none.suite.yaml'}: file not found — check the path and the spelling"]
    assert "is a folder" in problems_of(tmp_path)[0]


def test_workspace_is_relative_to_the_suite(tmp_path: Path) -> None:
    (tmp_path / "cases" / "one").mkdir(parents=True)
    path = suite(tmp_path / "s.suite.yaml", [
        {"id": "one", "task": "t", "workspace": "cases/one"},
        {"id": "two", "task": "t", "workspace": str(tmp_path / "cases" / "one")}])
    assert problems_of(path) == [
        f"{path}:8: cases[1].workspace: {str(tmp_path / 'cases' / 'one')!r} is not relative "
        "to the suite — give the folder relative to the suite file"]


# Random documents: loading never raises anything but SuiteLoadError, and each problem
# names a field (or the whole file) of the document.
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=8),
                    st.sampled_from(["command", "fileExists", "../x", "a", "run", "(["]))
check = st.fixed_dictionaries({}, optional={
    "type": st.one_of(st.sampled_from(CHECK_TYPES), scalars), "run": scalars, "path": scalars,
    "text": scalars, "pattern": scalars, "tool": scalars, "max": scalars, "min": scalars,
    "argsPattern": scalars, "bogus": scalars})
case = st.fixed_dictionaries({}, optional={
    "id": scalars, "task": scalars, "workspace": scalars, "tags": st.lists(scalars, max_size=2),
    "timeoutSec": scalars, "checks": st.one_of(scalars, st.lists(st.one_of(check, scalars),
                                                                 max_size=3)),
    "extra": scalars})
document = st.one_of(scalars, st.lists(scalars, max_size=2), st.fixed_dictionaries({}, optional={
    "name": scalars, "version": scalars, "timeoutSec": scalars, "description": scalars,
    "cases": st.one_of(scalars, st.lists(st.one_of(case, scalars), max_size=3)),
    "unknown": scalars}))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document)
def test_random_documents_never_crash_and_name_the_field(data) -> None:
    text = yaml.safe_dump(data)
    try:
        parse_suite(text, "random.suite.yaml")
    except SuiteLoadError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.file == "random.suite.yaml"
            assert problem.message
            head = problem.location.split(".")[0].split("[")[0]
            assert head in ("", "name", "version", "timeoutSec", "description", "cases",
                            "unknown"), problem
