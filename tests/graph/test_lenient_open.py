"""Opening a workflow with wrong fields for the editor: the rest opens, each wrong field is
a located problem, and what cannot be opened is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import load_workflow
from desktop.graph.lenient import open_workflow
from desktop.graph.resources import examples_dir

PIR = examples_dir() / "plan-implement-review.flow.yaml"


def test_a_valid_file_opens_with_nothing_left_out(tmp_path: Path) -> None:
    doc, left = open_workflow(PIR)
    assert left == [] and doc == load_workflow(PIR)


@pytest.mark.parametrize("text", [
    "nodes: [\n",  # not YAML
    "- just\n- a list\n",  # not a mapping
    "version: 99\nname: Later\nnodes: []\n",  # a newer format: never opened as ours
    "version: 1\nname: x\nnodes:\n  - {label: no id}\n",  # missing, not wrong
])
def test_what_cannot_be_opened_is_refused_as_before(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.flow.yaml"
    path.write_text(text)
    with pytest.raises(WorkflowLoadError) as refused:
        open_workflow(path)
    with pytest.raises(WorkflowLoadError) as strict:
        load_workflow(path)
    assert [str(p) for p in refused.value.problems] == [str(p) for p in strict.value.problems]


# "zz": no field of any model starts so, so the name is always a wrong one
names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12).map(
    lambda s: "zz" + s)
values = st.one_of(st.integers(), st.text(max_size=20), st.booleans(),
                   st.lists(st.integers(), max_size=3))


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(["top", "node", "config"]), name=names, value=values)
def test_one_unknown_field_anywhere_is_left_out_and_named(tmp_path: Path, where: str,
                                                          name: str, value) -> None:
    raw = yaml.safe_load(PIR.read_text())
    holder = {"top": raw, "node": raw["nodes"][1],
              "config": next(iter(raw["nodeConfigs"].values()))}[where]
    holder[name] = value
    path = tmp_path / "one.flow.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    doc, left = open_workflow(path)
    assert doc == load_workflow(PIR)  # everything else is as the example says
    assert len(left) == 1 and left[0].location.endswith(name) and left[0].line is not None
    assert "left out when the file was opened" in left[0].hint


@pytest.mark.parametrize(("value", "said"), [
    (True, "(it was true)"), (None, "(it was null)"), ("x", '(it was "x")'),
    ([1, False], "(it was [1,false])")])
def test_a_value_left_out_is_shown_as_the_file_spells_it(tmp_path: Path, value,
                                                         said: str) -> None:
    raw = yaml.safe_load(PIR.read_text())
    raw["zzUnknown"] = value
    path = tmp_path / "one.flow.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    _doc, [left] = open_workflow(path)
    assert said in left.hint


@given(value=st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                       st.booleans(), st.text(alphabet="abc", min_size=1),
                       st.lists(st.integers(), min_size=1, max_size=3)))
@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_file_that_is_no_mapping_is_named_in_yaml_s_words(tmp_path: Path, value) -> None:
    path = tmp_path / "scalar.flow.yaml"
    path.write_text(yaml.safe_dump(value))
    with pytest.raises(WorkflowLoadError) as refused:
        load_workflow(path)
    said = str(refused.value.problems[0])
    assert "a workflow is a mapping of fields, not a" in said
    assert not any(f"not a {python}" in said for python in ("int", "float", "bool", "str"))
