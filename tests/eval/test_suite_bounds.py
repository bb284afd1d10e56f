"""Every number of a suite is bounded as the command line bounds it: a value the records
cannot hold (inf, nan, a year and more of seconds, a whole number past 2**53) is a located
problem with its fix, never a traceback or a check stored as null."""

import math

import orjson
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli.seconds_arg import MOST
from desktop.eval.suite import MOST_COUNT, MOST_SECONDS, SuiteLoadError, parse_suite

FIELDS = {
    # field -> (where it is in the document, the smallest and largest value it takes)
    "suite timeoutSec": (("timeoutSec",), 0.0, MOST_SECONDS),
    "case timeoutSec": (("cases", 0, "timeoutSec"), 0.0, MOST_SECONDS),
    "command timeoutSec": (("cases", 0, "checks", 0, "timeoutSec"), 0.0, MOST_SECONDS),
    "toolCalled min": (("cases", 0, "checks", 1, "min"), 1, MOST_COUNT),
    "maxTurns max": (("cases", 0, "checks", 2, "max"), 1, MOST_COUNT),
    "maxCostUsd max": (("cases", 0, "checks", 3, "max"), 0, MOST_COUNT),
}


def _document() -> dict:
    return {"name": "bounds", "cases": [{"id": "a", "task": "t", "checks": [
        {"type": "command", "run": "true"}, {"type": "toolCalled", "tool": "shell"},
        {"type": "maxTurns", "max": 3}, {"type": "maxCostUsd", "max": 1}]}]}


def _set(data: dict, path: tuple, value: object) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def _get(data: object, path: tuple) -> object:
    for key in path:
        data = data[key]
    return data


def _location(path: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(), st.integers(min_value=2**53 - 2, max_value=2**70),
    st.sampled_from([0, -1, 1, 2**53, 2**53 + 1, 10**23, 1e308, 31536000, 31536000.5,
                     float("inf"), float("-inf"), float("nan")]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(FIELDS)), numbers)
def test_a_number_is_in_bounds_or_a_located_problem(field: str, value: float) -> None:
    path, low, high = FIELDS[field]
    data = _document()
    _set(data, path, value)
    text = yaml.safe_dump(data, sort_keys=False)
    try:
        suite = parse_suite(text, "n.suite.yaml")
    except SuiteLoadError as exc:
        [problem] = exc.problems
        assert problem.file == "n.suite.yaml" and problem.line is not None
        assert problem.location == _location(path), problem
        assert problem.hint, problem  # the fix says the bounds
        return
    stored = orjson.loads(orjson.dumps(suite.model_dump(mode="json", by_alias=True)))
    kept = _get(stored, path)
    assert isinstance(kept, int | float) and math.isfinite(kept), (field, value, kept)
    assert low <= kept <= high and (kept > 0 or (low == 0 and "timeoutSec" not in field))
    assert kept == (float(value) if isinstance(kept, float) else value)


@pytest.mark.parametrize("text, expected", [
    ("name: x\ntimeoutSec: 1.0e+308\ncases: [{id: a, task: t}]\n",
     "n.suite.yaml:2: timeoutSec: 1e+308 is not a time limit — give a positive number of "
     "seconds up to 31536000 (a year), such as 300"),
    ("name: x\ntimeoutSec: 1e308\ncases: [{id: a, task: t}]\n",  # text to YAML
     "n.suite.yaml:2: timeoutSec: timeoutSec must be a number of seconds, not the text "
     "'1e308' — write 1.0e+308: YAML reads 1e308 as text"),
    ("name: x\ncases:\n  - id: a\n    task: t\n    checks:\n      - type: maxTurns\n"
     "        max: 99999999999999999999999\n",
     "n.suite.yaml:7: cases[0].checks[0].max: 99999999999999999999999 is out of range — "
     "give a whole number from 1 to 9007199254740992"),
    ("name: x\ncases:\n  - id: a\n    task: t\n    checks:\n      - type: command\n"
     "        run: 'true'\n        timeoutSec: .inf\n",
     "n.suite.yaml:8: cases[0].checks[0].timeoutSec: inf is not a time limit"),
    ("name: x\ncases: []\n",
     "n.suite.yaml:2: cases: a suite needs at least one case — add one below `cases:`"),
])
def test_the_reported_values_are_refused_with_their_fix(text: str, expected: str) -> None:
    with pytest.raises(SuiteLoadError) as info:
        parse_suite(text, "n.suite.yaml")
    assert any(str(p).startswith(expected) for p in info.value.problems), info.value.problems


def test_the_suite_and_the_command_line_share_one_time_bound() -> None:
    assert MOST_SECONDS == MOST
