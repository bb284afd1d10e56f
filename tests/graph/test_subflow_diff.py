"""A workflow diff looks inside the workflows subflow nodes run, nested ones too."""

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import load_workflow
from desktop.graph.subflow_diff import diff_sides, read_from_disk, side_tree


def flow_text(name: str, label: str, sub: str | None = None) -> str:
    """A workflow of one agent node (labelled ``label``) and, with ``sub``, a subflow
    node ``inner`` running the file ``sub``."""
    text = (f"version: 1\nname: {name}\nnodes:\n  - id: agent\n    label: {label!r}\n"
            "    provider: scripted\n    entry: true\n")
    if sub:
        text += f"  - id: inner\n    label: Inner\n    kind: subflow\n    flow: {sub}\n"
    return text


def write_chain(folder: Path, labels: list[str]) -> Path:
    """Files level0 → level1 → … each running the next as subflow node ``inner``; the
    agent of level i is labelled ``labels[i]``; returns the top file."""
    folder.mkdir(parents=True, exist_ok=True)
    for depth, label in enumerate(labels):
        sub = f"level{depth + 1}.flow.yaml" if depth + 1 < len(labels) else None
        (folder / f"level{depth}.flow.yaml").write_text(flow_text(f"L{depth}", label, sub))
    return folder / "level0.flow.yaml"


def side(path: Path):
    return side_tree(load_workflow(path), path, read_from_disk)


LABELS = st.text(alphabet="abcdefghij KLMNO", min_size=1, max_size=12).map(str.strip).filter(
    bool)


@settings(max_examples=40, deadline=None)
@given(labels=st.lists(LABELS, min_size=2, max_size=4), data=st.data())
def test_a_change_at_any_depth_is_found_under_its_subflow_node(labels, data):
    depth = data.draw(st.integers(1, len(labels) - 1), label="depth")
    new_label = data.draw(LABELS.filter(lambda x: x != labels[depth]), label="new label")
    changed = [*labels]
    changed[depth] = new_label
    with tempfile.TemporaryDirectory() as tmp:
        old = side(write_chain(Path(tmp) / "a", labels))
        new = side(write_chain(Path(tmp) / "b", changed))
        assert diff_sides(old, side(write_chain(Path(tmp) / "c", labels))).same
        diff = diff_sides(old, new)
    assert not diff.same
    assert not (diff.changed_nodes or diff.added_nodes or diff.removed_nodes)
    for _ in range(depth):  # one subflow node deeper per level
        assert [s.id for s in diff.subflows] == ["inner"]
        diff = diff.subflows[0].diff
    assert diff.subflows == ()
    assert [(n.id, [(c.path, c.old, c.new) for c in n.changes]) for n in diff.changed_nodes] \
        == [("agent", [("label", labels[depth], new_label)])]


def test_a_missing_subflow_file_is_a_load_error_naming_node_and_file(tmp_path: Path):
    top = write_chain(tmp_path, ["a", "b", "c"])
    (tmp_path / "level2.flow.yaml").unlink()
    with pytest.raises(WorkflowLoadError) as caught:
        side(top)
    first = caught.value.problems[0]
    assert first.file == str(tmp_path / "level1.flow.yaml")
    assert first.location == "nodes[1].flow" and "'level2.flow.yaml'" in first.message
    assert "relative to this workflow's folder" in first.hint


def test_subflows_in_a_cycle_are_a_load_error(tmp_path: Path):
    (tmp_path / "a.flow.yaml").write_text(flow_text("A", "a", "b.flow.yaml"))
    (tmp_path / "b.flow.yaml").write_text(flow_text("B", "b", "a.flow.yaml"))
    with pytest.raises(WorkflowLoadError) as caught:
        side(tmp_path / "a.flow.yaml")
    assert "cycle: a.flow.yaml uses b.flow.yaml uses a.flow.yaml" in str(caught.value)
