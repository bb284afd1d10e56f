"""Sticky notes and groups in the workflow file: saved, read back, validated with the
file, line and fix; files without them read and write exactly as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.graph.decorations import Box, NodeGroup, StickyNote
from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import dumps_workflow, load_workflow, loads_workflow, save_workflow
from desktop.graph.resources import examples_dir

FLOW = """\
version: 1
name: Notes
nodes:
  - id: a
    label: A
edges: []
notes:
  - id: note-1
    text: |
      Remember:
      the reviewer sends it back once.
    box: {x: 10, y: -20.5, width: 260, height: 120}
    color: '#fff1a6'
groups:
  - id: group-1
    label: Review loop
    box: {x: -40, y: -80, width: 600, height: 300}
"""


def test_notes_and_groups_are_read_and_saved(tmp_path: Path) -> None:
    doc = loads_workflow(FLOW)
    assert doc.notes == [StickyNote(id="note-1", text="Remember:\nthe reviewer sends it back "
                                    "once.\n", box=Box(x=10, y=-20.5, width=260, height=120),
                                    color="#fff1a6")]
    assert doc.groups[0].label == "Review loop" and doc.groups[0].box.width == 600
    path = tmp_path / "n.flow.yaml"
    save_workflow(doc, path)
    again = load_workflow(path)
    assert again == doc
    assert path.read_text() == dumps_workflow(again)  # stable bytes


@pytest.mark.parametrize("example", sorted(examples_dir().glob("*.flow.yaml")),
                         ids=lambda p: p.name)
def test_files_without_them_are_unchanged(example: Path) -> None:
    text = example.read_text(encoding="utf-8")
    doc = loads_workflow(text)
    assert doc.notes == [] and doc.groups == []
    out = dumps_workflow(doc)
    assert out == text and "notes" not in out and "groups" not in out


@pytest.mark.parametrize(("change", "where", "says"), [
    (("width: 260", "width: -5"), "notes[0].box.width", "greater than or equal to 20"),
    (("color: '#fff1a6'", "color: yellow"), "notes[0].color", "should match pattern"),
    (("id: group-1", "id: 9 lives"), "groups[0].id", "ids are slugs"),
    (("    label: Review loop", "    labels: Review loop"), "groups[0].labels",
     "did you mean 'label'"),
    (("x: 10,", "x: .nan,"), "notes[0].box.x", "finite"),
])
def test_bad_values_name_the_file_line_field_and_fix(change, where, says) -> None:
    with pytest.raises(WorkflowLoadError) as caught:
        loads_workflow(FLOW.replace(*change), "team.flow.yaml")
    text = str(caught.value)
    assert "team.flow.yaml:" in text and where in text and says in text


def test_a_note_and_a_group_may_not_share_an_id() -> None:
    with pytest.raises(WorkflowLoadError, match="distinct ids; note-1"):
        loads_workflow(FLOW.replace("id: group-1", "id: note-1"), "dup.flow.yaml")


_boxes = st.builds(Box, x=st.floats(-1e6, 1e6), y=st.floats(-1e6, 1e6),
                   width=st.floats(20, 5000), height=st.floats(20, 5000))
_text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=60)


@given(st.lists(st.tuples(_text, _boxes), max_size=4), st.lists(st.tuples(_text, _boxes),
                                                               max_size=3))
def test_any_notes_and_groups_survive_a_save(notes, groups) -> None:
    doc = WorkflowDocument(
        notes=[StickyNote(id=f"note-{i}", text=t, box=b) for i, (t, b) in enumerate(notes)],
        groups=[NodeGroup(id=f"group-{i}", label=t, box=b) for i, (t, b) in enumerate(groups)])
    again = loads_workflow(dumps_workflow(doc))
    assert [n.text for n in again.notes] == [n.text for n in doc.notes]
    assert [g.label for g in again.groups] == [g.label for g in doc.groups]
    for a, b in zip(again.notes + again.groups, doc.notes + doc.groups, strict=True):
        assert a.box.x == pytest.approx(b.box.x) and a.box.width == pytest.approx(b.box.width)
