"""Numbers and flags in a workflow file are taken as YAML typed them: ``timeoutSec: true``
is not one second, ``maxTurns: "3"`` (text) not 3, ``maxTurns: 3.0`` not a whole number,
``untilDone: "yes"`` not true. Each is a problem naming the file, the line, the field and
the fix, wherever the field is (a node's limits, budget, retries, the workflow's budget,
a position); the values the fields take still load. (A node's best-of-N ``attempts``
has its own words for anything but a whole number or a list.)"""

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
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import read_workflow
from desktop.graph.lenient import open_workflow

BASE: dict[str, Any] = {
    "version": 1, "name": "n", "task": "t",
    "nodes": [{"id": "a", "entry": True, "position": {"x": 0, "y": 0}}],
    "nodeConfigs": {"a": {"instructions": "do it"}}}

# field path -> (the smallest value it takes, the largest)
WHOLE = {"nodeConfigs.a.limits.maxTurns": (1, 100), "nodeConfigs.a.limits.retries": (0, 9),
         "nodeConfigs.a.limits.maxOutputBytes": (1, 10**9),
         "nodeConfigs.a.stallThreshold": (2, 50), "nodeConfigs.a.maxRestarts": (0, 9),
         "nodeConfigs.a.budget.maxTokens": (1, 10**9),
         "budget.maxTokens": (1, 10**9)}
NUMBERS = {"nodeConfigs.a.limits.timeoutSec": (1, 10**6),
           "nodeConfigs.a.limits.retryBackoffSec": (0, 100),
           "nodeConfigs.a.limits.silenceSec": (1, 10**4),
           "nodeConfigs.a.budget.maxCostUsd": (1, 100), "budget.maxWallSec": (1, 10**6),
           "budget.maxCostUsd": (1, 100), "nodes.0.position.x": (-1000, 1000)}
FLAGS = ("nodeConfigs.a.untilDone", "nodes.0.entry")

NUMERIC_TEXT = st.one_of(st.integers(0, 10**6).map(str), st.just("1e3"), st.just("2.5"),
                         st.just(" 30 "))
NOT_WHOLE = st.one_of(st.booleans(), NUMERIC_TEXT, st.integers(1, 100).map(float),
                      st.floats(0.1, 100).filter(lambda f: not f.is_integer()))
NOT_NUMBER = st.one_of(st.booleans(), NUMERIC_TEXT)
NOT_FLAG = st.one_of(st.sampled_from(["yes", "true", "false", "on", "1"]),
                     st.integers(0, 1), st.just(1.0))


def _steps(field: str) -> list[str | int]:
    return [int(part) if part.isdigit() else part for part in field.split(".")]


def _with(field: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    holder: Any = data
    *parents, last = _steps(field)
    for step in parents:
        holder = holder.setdefault(step, {}) if isinstance(step, str) else holder[step]
    holder[last] = value
    return data


def _location(field: str) -> str:
    return "".join(f"[{s}]" if isinstance(s, int) else f".{s}"
                   for s in _steps(field)).lstrip(".")


def _write(folder: Path, field: str, value: Any) -> Path:
    path = folder / "w.flow.yaml"
    path.write_text(yaml.safe_dump(_with(field, value), sort_keys=False), encoding="utf-8")
    return path


def _refused(field: str, value: Any, wanted: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(Path(tmp), field, value)
        with pytest.raises(WorkflowLoadError) as caught:
            read_workflow(path)
        [problem] = caught.value.problems
        name = field.rsplit(".", 1)[-1]
        assert problem.location == _location(field)
        assert problem.file == str(path) and problem.line is not None
        assert problem.message.startswith(f"{name} must be {wanted}"), problem
        assert problem.hint.startswith("write "), problem
        # the editor opens the rest, leaving the field out with its problem
        _, left = open_workflow(path)
        assert [p.location for p in left] == [_location(field)]


@settings(max_examples=80, deadline=None)
@given(field=st.sampled_from(sorted(WHOLE)), value=NOT_WHOLE)
@example(field="nodeConfigs.a.limits.maxTurns", value=True)
@example(field="nodeConfigs.a.limits.maxTurns", value="3")
@example(field="nodeConfigs.a.limits.maxTurns", value=3.0)
def test_a_whole_number_field_refuses_flags_text_and_fractions(field: str, value: Any) -> None:
    _refused(field, value, "a whole number")


@settings(max_examples=80, deadline=None)
@given(field=st.sampled_from(sorted(NUMBERS)), value=NOT_NUMBER)
@example(field="nodeConfigs.a.limits.timeoutSec", value=True)
@example(field="nodeConfigs.a.limits.timeoutSec", value="30")
@example(field="budget.maxWallSec", value=False)
def test_a_number_field_refuses_flags_and_text(field: str, value: Any) -> None:
    _refused(field, value, "a number")


@settings(max_examples=40, deadline=None)
@given(field=st.sampled_from(FLAGS), value=NOT_FLAG)
def test_a_flag_refuses_text_and_numbers(field: str, value: Any) -> None:
    _refused(field, value, "true or false")


@settings(max_examples=80, deadline=None)
@given(data=st.data(), field=st.sampled_from(sorted(WHOLE) + sorted(NUMBERS)))
def test_the_values_the_fields_take_still_load(data: st.DataObject, field: str) -> None:
    low, high = {**WHOLE, **NUMBERS}[field]
    value = data.draw(st.integers(low, high))  # a whole number is a number too
    if field in NUMBERS:
        value = data.draw(st.sampled_from([value, value + 0.5 if value < high else value]))
    with tempfile.TemporaryDirectory() as tmp:
        doc, _ = read_workflow(_write(Path(tmp), field, value))
    held: Any = doc.model_dump(by_alias=True)
    for step in _steps(field):
        held = held[step]
    assert held == value and type(held) is (int if field in WHOLE else float)


def test_the_message_names_the_field_the_kind_and_the_fix(tmp_path: Path) -> None:
    path = _write(tmp_path, "nodeConfigs.a.limits.timeoutSec", True)
    with pytest.raises(WorkflowLoadError) as caught:
        read_workflow(path)
    assert str(caught.value.problems[0]) == (
        f"{path}:14: nodeConfigs.a.limits.timeoutSec: timeoutSec must be a number of "
        "seconds, not true — write a number, e.g. 2.5, or leave the field out for the default")
    text = yaml.safe_dump(_with("budget.maxWallSec", "1e3"), sort_keys=False)
    path.write_text(text.replace("'1e3'", "1e3"))  # unquoted: YAML reads it as text
    with pytest.raises(WorkflowLoadError) as caught:
        read_workflow(path)
    assert caught.value.problems[0].hint == "write 1000: YAML reads 1e3 as text"


def test_validate_names_the_file_and_field_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "nodeConfigs.a.limits.timeoutSec", True)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:14: nodeConfigs.a.limits.timeoutSec: timeoutSec must be a number of " \
           "seconds, not true" in err
    assert "Traceback" not in err


@settings(max_examples=30, deadline=None)
@given(field=st.sampled_from(["numCpus", "numGpus", "memoryMb"]),
       value=st.one_of(st.booleans(), NUMERIC_TEXT))
@example(field="numCpus", value=True)
def test_a_ray_executor_takes_its_resources_as_written(field: str, value: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(Path(tmp), "executor", {"kind": "ray", "resources": {field: value}})
        with pytest.raises(WorkflowLoadError) as caught:
            read_workflow(path)
        [problem] = caught.value.problems
        assert problem.location == "executor" and problem.file == str(path)
        assert f"resources.{field}: Input should be a valid " in problem.message
        shown = str(value).lower() if isinstance(value, bool) else f'"{value}"'
        assert f", not {shown}" in problem.message
        path = _write(Path(tmp), "executor", {"kind": "ray", "resources": {field: 2}})
        assert read_workflow(path)[0].executor.resources.model_dump(by_alias=True)[field] == 2
