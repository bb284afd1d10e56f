"""Numbers and flags in an evaluation suite are taken as YAML typed them, as in a
workflow: ``timeoutSec: true`` is not one second, ``"300"`` (text) not 300, ``max: 3.0``
not a whole number, ``ignoreCase: "yes"`` not true. Each is a problem naming the file,
the line, the field and the fix; ``eval run`` says so and runs nothing."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from desktop.cli import main
from desktop.eval.suite import SuiteLoadError, load_suite
from tests.eval.evalkit import flow

CHECKS = [{"type": "command", "run": "true"}, {"type": "maxTurns", "max": 3},
          {"type": "maxCostUsd", "max": 1}, {"type": "toolCalled", "tool": "command"},
          {"type": "outputContains", "text": "x"}]
BASE: dict[str, Any] = {"version": 1, "name": "s",
                        "cases": [{"id": "a", "task": "t", "checks": CHECKS}]}

WHOLE = {"version": (1, 1), "cases.0.checks.1.max": (1, 100),
         "cases.0.checks.3.min": (1, 100)}
NUMBERS = {"timeoutSec": (1, 10**6), "cases.0.timeoutSec": (1, 10**6),
           "cases.0.checks.0.timeoutSec": (1, 10**6), "cases.0.checks.2.max": (0, 100)}
FLAGS = ("cases.0.checks.4.ignoreCase",)

NUMERIC_TEXT = st.one_of(st.integers(1, 10**5).map(str), st.just("2.5"), st.just("1e3"))
NOT_WHOLE = st.one_of(st.booleans(), NUMERIC_TEXT, st.integers(1, 100).map(float))
NOT_NUMBER = st.one_of(st.booleans(), NUMERIC_TEXT)
NOT_FLAG = st.one_of(st.sampled_from(["yes", "true", "on"]), st.integers(0, 1))


def _steps(field: str) -> list[str | int]:
    return [int(part) if part.isdigit() else part for part in field.split(".")]


def _location(field: str) -> str:
    return "".join(f"[{s}]" if isinstance(s, int) else f".{s}"
                   for s in _steps(field)).lstrip(".")


def _write(folder: Path, field: str, value: Any) -> Path:
    data = copy.deepcopy(BASE)
    holder: Any = data
    *parents, last = _steps(field)
    for step in parents:
        holder = holder[step]
    holder[last] = value
    path = folder / "s.suite.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _refused(field: str, value: Any, wanted: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(Path(tmp), field, value)
        with pytest.raises(SuiteLoadError) as caught:
            load_suite(path)
    [problem] = caught.value.problems
    assert problem.location == _location(field)
    assert problem.file == str(path) and problem.line is not None
    assert problem.message.startswith(f"{_steps(field)[-1]} must be {wanted}"), problem
    assert problem.hint.startswith("write "), problem


@settings(max_examples=50, deadline=None)
@given(field=st.sampled_from(sorted(WHOLE)), value=NOT_WHOLE)
@example(field="cases.0.checks.1.max", value=True)
@example(field="cases.0.checks.1.max", value="3")
def test_a_whole_number_field_refuses_flags_text_and_fractions(field: str, value: Any) -> None:
    _refused(field, value, "a whole number")


@settings(max_examples=50, deadline=None)
@given(field=st.sampled_from(sorted(NUMBERS)), value=NOT_NUMBER)
@example(field="timeoutSec", value=True)
@example(field="cases.0.timeoutSec", value="30")
def test_a_number_field_refuses_flags_and_text(field: str, value: Any) -> None:
    _refused(field, value, "a number")


@settings(max_examples=20, deadline=None)
@given(field=st.sampled_from(FLAGS), value=NOT_FLAG)
def test_a_flag_refuses_text_and_numbers(field: str, value: Any) -> None:
    _refused(field, value, "true or false")


@settings(max_examples=50, deadline=None)
@given(data=st.data(), field=st.sampled_from(sorted(WHOLE) + sorted(NUMBERS)))
def test_the_values_the_fields_take_still_load(data: st.DataObject, field: str) -> None:
    low, high = {**WHOLE, **NUMBERS}[field]
    value = data.draw(st.integers(low, high))  # a whole number is a number too
    if field in NUMBERS and value < high:
        value = data.draw(st.sampled_from([value, value + 0.5]))
    with tempfile.TemporaryDirectory() as tmp:
        suite = load_suite(_write(Path(tmp), field, value))
    held: Any = suite.model_dump(by_alias=True)
    for step in _steps(field):
        held = held[step]
    assert held == value and type(held) is (int if field in WHOLE else float)


def test_eval_run_names_the_field_and_runs_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = _write(tmp_path, "timeoutSec", True)
    side = flow(tmp_path / "a.flow.yaml", [{"say": "done"}, {"done": True}])
    code = main(["eval", "run", str(suite), "--baseline", str(side), "--new", str(side),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{suite}:17: timeoutSec: timeoutSec must be a number of seconds, not true" in err
    assert "nothing was run" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
