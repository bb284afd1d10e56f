"""Whole numbers beyond 64 bits are refused when a workflow is read or checked, located
by file, line and field, instead of passing and failing the run once its turns ran."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.cli.entry import main
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.fields import INT64_MAX, INT64_MIN
from desktop.graph.io import document_of, loads_workflow
from desktop.graph.lenient import open_workflow
from desktop.graph.validate import validate

EXAMPLE = Path(__file__).resolve().parents[2] / "resources/examples/single-agent.flow.yaml"
BASE: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))

FIELDS: list[tuple[str, ...]] = [
    ("nodeConfigs", "implementer", "limits", "maxTurns"),
    ("nodeConfigs", "implementer", "limits", "maxOutputBytes"),
    ("nodeConfigs", "implementer", "limits", "retries"),
    ("nodeConfigs", "implementer", "limits", "timeoutSec"),
    ("nodeConfigs", "implementer", "stallThreshold"),
    ("nodeConfigs", "implementer", "maxRestarts"),
    ("nodeConfigs", "implementer", "budget", "maxTokens"),
    ("budget", "maxTokens"),
    ("extra", "count"),
]
"""Integer fields of every kind: constrained, unconstrained, float-typed, free-form."""

too_wide = st.one_of(st.integers(min_value=INT64_MAX + 1),
                     st.integers(max_value=INT64_MIN - 1))


def with_value(path: tuple[str, ...], value: int) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    holder = data
    for key in path[:-1]:
        holder = holder.setdefault(key, {})
    holder[path[-1]] = value
    return data


def location(path: tuple[str, ...]) -> str:
    return ".".join(path)


@settings(max_examples=60, deadline=None)
@given(path=st.sampled_from(FIELDS), value=too_wide)
def test_reading_refuses_an_integer_beyond_64_bits_at_its_line(
        path: tuple[str, ...], value: int) -> None:
    text = yaml.safe_dump(with_value(path, value), sort_keys=False)
    try:
        loads_workflow(text, "w.flow.yaml")
    except WorkflowLoadError as exc:
        problems = exc.problems
    else:
        raise AssertionError("a number beyond 64 bits was accepted")
    [problem] = [p for p in problems if p.location == location(path)]
    line = next(i for i, t in enumerate(text.splitlines(), 1) if str(value) in t)
    assert problem.file == "w.flow.yaml" and problem.line == line
    assert str(INT64_MAX if value > 0 else INT64_MIN) in problem.message
    assert problem.hint and problem.is_error
    assert str(problem).startswith(f"w.flow.yaml:{line}: {location(path)}: ")


SETTERS = {
    "nodeConfigs.implementer.limits.maxTurns":
        lambda doc, v: setattr(doc.node_configs["implementer"].limits, "max_turns", v),
    "nodeConfigs.implementer.stallThreshold":
        lambda doc, v: setattr(doc.node_configs["implementer"], "stall_threshold", v),
    "extra.count": lambda doc, v: doc.extra.update(count=v),
}
"""Fields set on a document in code, as the editor's inspector and the service do."""


@settings(max_examples=30, deadline=None)
@given(where=st.sampled_from(sorted(SETTERS)), value=too_wide)
def test_validate_refuses_it_in_a_document_made_in_code(where: str, value: int) -> None:
    doc = loads_workflow(EXAMPLE.read_text(encoding="utf-8"))
    SETTERS[where](doc, value)
    found = [p for p in validate(doc) if p.location == where]
    bound = str(INT64_MAX if value > 0 else INT64_MIN)
    assert any(p.is_error and bound in p.message for p in found)


@settings(max_examples=30, deadline=None)
@given(value=st.integers(min_value=1, max_value=INT64_MAX))
def test_numbers_within_64_bits_are_kept(value: int) -> None:
    raw = with_value(("nodeConfigs", "implementer", "limits", "maxTurns"), value)
    doc = document_of(raw, None, "w.flow.yaml")
    assert doc.node_configs["implementer"].limits.max_turns == value
    assert [p for p in validate(doc) if p.is_error] == []


def test_the_editor_opens_the_file_without_the_number(tmp_path: Path) -> None:
    path = tmp_path / "w.flow.yaml"
    path.write_text(yaml.safe_dump(with_value(("budget", "maxTokens"), 10**23)))
    doc, left = open_workflow(path)
    assert doc.budget is not None and doc.budget.max_tokens is None
    [problem] = left
    assert problem.location == "budget.maxTokens" and "left out" in problem.hint


def test_validate_command_names_file_line_and_field(tmp_path: Path, capsys) -> None:
    path = tmp_path / "w.flow.yaml"
    path.write_text(EXAMPLE.read_text(encoding="utf-8").replace(
        "      timeoutSec: 120\n",
        "      timeoutSec: 120\n      maxTurns: 99999999999999999999999\n"))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:23: nodeConfigs.implementer.limits.maxTurns: 99999999999999999999999 is too " \
           "large" in err
    assert "Traceback" not in err


@settings(max_examples=20, deadline=None)
@given(value=too_wide, listed=st.booleans())
def test_an_unknown_field_holding_one_is_named_once(value: int, listed: bool) -> None:
    raw = with_value(("nodeConfigs", "implementer", "zzcount"), [value] if listed else value)
    try:
        document_of(raw, None, "w.flow.yaml")
    except WorkflowLoadError as exc:
        problems = exc.problems
    else:
        raise AssertionError("an unknown field was accepted")
    assert [p.location for p in problems] == ["nodeConfigs.implementer.zzcount"]
    assert "unknown field" in problems[0].message
