"""Bad workflow files give located, actionable problems and never a traceback."""

from pathlib import Path

import pytest

from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import load_workflow, loads_workflow


def problems(text: str) -> list:
    with pytest.raises(WorkflowLoadError) as info:
        loads_workflow(text, "w.flow.yaml")
    assert info.value.problems
    return info.value.problems


def test_malformed_yaml_names_file_and_line() -> None:
    [p] = problems("name: x\nnodes:\n  - id: a\n   label: [oops\n")
    assert p.file == "w.flow.yaml" and p.line in (3, 4)
    assert "malformed YAML" in p.message
    assert str(p).startswith(f"w.flow.yaml:{p.line}: malformed YAML")


def test_python_object_tag_is_refused_before_anything_runs() -> None:
    [p] = problems("name: !!python/object/apply:os.system ['echo pwned']\nnodes: []\n")
    assert "not allowed" in p.message and "python/object" in p.message
    assert p.line == 1 and p.location == "name"


def test_other_custom_tags_are_refused() -> None:
    [p] = problems("name: x\nnodes: !custom []\n")
    assert p.location == "nodes" and p.line == 2


def test_wrong_types_name_the_field_and_line() -> None:
    found = problems("""name: x
nodes:
  - id: a
    entry: maybe
    position: {x: left, y: 0}
edges: {}
""")
    by_loc = {p.location: p for p in found}
    assert by_loc["nodes[0].entry"].line == 4
    assert by_loc["nodes[0].position.x"].line == 5
    assert "edges" in by_loc


@pytest.mark.parametrize(("field", "value", "fix"), [
    ("stallThreshold", "many", "write a whole number, e.g. 3"),
    ("stallThreshold", "2.5", "write a whole number, e.g. 3"),
    ("untilDone", "maybe", "write true or false"),
    ("instructions", "[a, b]", "write text (in quotes"),
    ("args", "'-v'", "write a list: [a, b]"),
    ("limits", "5", "write a mapping: 'key: value' lines"),
    ("budget", "{maxCostUsd: lots}", "write a number, e.g. 2.5"),
])
def test_a_wrong_type_says_how_to_write_the_value_in_yaml(field: str, value: str,
                                                          fix: str) -> None:
    # the type's own name ("expected a int value", "a model value") is no fix for a user
    [p] = problems("name: x\nnodes:\n  - id: a\nnodeConfigs:\n  a:\n"
                   f"    {field}: {value}\n")
    assert p.line == 6 and p.location.startswith(f"nodeConfigs.a.{field}")
    assert f" — {fix}" in str(p), str(p)
    assert "expected a" not in str(p) and "instance of" not in str(p)


def test_unknown_fields_are_named_with_a_suggestion() -> None:
    found = problems("""name: x
nodez: []
nodes:
  - id: a
    lable: A
nodeConfigs:
  a:
    instruction: hi
    limits: {timeout: 3}
""")
    by_loc = {p.location: p for p in found}
    assert "unknown field 'nodez'" in by_loc["nodez"].message
    assert by_loc["nodez"].hint == "did you mean 'nodes'?"
    assert by_loc["nodes[0].lable"].line == 5
    assert by_loc["nodeConfigs.a.instruction"].hint == "did you mean 'instructions'?"
    assert by_loc["nodeConfigs.a.limits.timeout"].line == 9


def test_unknown_enum_value_lists_the_choices() -> None:
    [p] = problems("name: x\nnodes:\n  - id: a\n    provider: gpt\n")
    assert p.location == "nodes[0].provider" and p.line == 4
    assert p.message == "unknown provider 'gpt'"
    assert "scripted" in p.hint and "claude" in p.hint


def test_bad_mode_and_slug_and_duplicate_key() -> None:
    by_loc = {p.location: p for p in problems("name: x\nmode: FAST\nnodes: [{id: 9lives}]\n")}
    assert "AUTO" in by_loc["mode"].hint
    assert "slug" in by_loc["nodes[0].id"].hint
    [dup] = problems("name: x\nname: y\nnodes: []\n")
    assert dup.location == "name" and dup.line == 2 and "duplicate" in dup.message


@pytest.mark.parametrize("text, needle", [
    ("", "empty"), ("- a\n- b\n", "mapping"), ("version: 9\nname: x\n", "version 9"),
])
def test_whole_file_shape_problems(text: str, needle: str) -> None:
    assert needle in str(problems(text)[0])


def test_file_not_found_and_folder_and_bad_utf8(tmp_path: Path) -> None:
    with pytest.raises(WorkflowLoadError) as info:
        load_workflow(tmp_path / "missing.flow.yaml")
    assert "file not found" in str(info.value) and "missing.flow.yaml" in str(info.value)
    with pytest.raises(WorkflowLoadError) as info:
        load_workflow(tmp_path)
    assert "folder" in str(info.value)
    bad = tmp_path / "bad.flow.yaml"
    bad.write_bytes(b"name: x\nlabel: \xff\n")
    with pytest.raises(WorkflowLoadError) as info:
        load_workflow(bad)
    assert info.value.problems[0].line == 2 and "UTF-8" in str(info.value)
