"""Compare mode: another workflow's differences on the canvas and in the inspector, and a
canvas exactly as before once it ends (the document never touched)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.graph.document import Position, WorkflowEdge, WorkflowNode
from desktop.graph.io import dumps_workflow, load_workflow, save_workflow
from desktop.ui.canvas.compare_overlay import GhostNode


@pytest.fixture
def other(example_window, tmp_path: Path) -> Path:
    """The open example as it was before: no reviewer, a tester instead, another model
    for the implementer, and the planner somewhere else (layout only)."""
    doc = load_workflow(example_window.file.path)
    doc.nodes = [n for n in doc.nodes if n.id != "reviewer"]
    doc.nodes[0].position = Position(x=-300, y=200)
    doc.nodes.append(WorkflowNode(id="tester", label="Tester", position=Position(x=300, y=260)))
    doc.edges = [e for e in doc.edges if "reviewer" not in (e.from_, e.to)]
    doc.edges.append(WorkflowEdge(**{"from": "implementer"}, to="tester"))
    doc.node_configs.pop("reviewer")
    doc.node_configs["implementer"].model = "gpt-5"
    path = tmp_path / "before.flow.yaml"
    save_workflow(doc, path)
    return path


def scene_items(win) -> list:
    return sorted((type(i).__name__, i.pos().x(), i.pos().y(), i.zValue())
                  for i in win.scene.items())


def test_compare_marks_the_canvas_and_leaves_it_as_it_was(example_window, other) -> None:
    win = example_window
    text, steps = dumps_workflow(win.editor.model.doc), win.editor.undo_stack.count()
    before = scene_items(win)
    assert win.compare.with_path(other)
    nodes = win.scene.nodes
    assert nodes["reviewer"].diff_mark == "added"
    assert nodes["implementer"].diff_mark == "changed"
    assert nodes["planner"].diff_mark is None  # moved only: layout is no difference
    ghosts = [i for i in win.scene.items() if isinstance(i, GhostNode)]
    assert [(g.node_id, g.pos().x(), g.pos().y()) for g in ghosts] == [("tester", 300, 260)]
    assert len(win.compare.overlay.ghost_edges) == 2  # implementer → tester: line and head
    marks = {win.editor.model.edge(k).id: i.diff_mark for k, i in win.scene.edges.items()}
    assert marks == {"planner-to-implementer": None, "implementer-to-reviewer": "added",
                     "reviewer-to-implementer": "added", "reviewer-reports-to-planner": "added"}
    assert "1 removed" in win.info.label.text() and win.info.isVisible()

    win.scene.select(["implementer"])
    inspector = win.inspector
    assert inspector.compare_header.text() == "COMPARED WITH before.flow.yaml"
    assert inspector.compare_lines.text() == 'config.model: "gpt-5" → unset'
    assert not inspector.compare_lines.isHidden()
    win.scene.select(["reviewer"])
    assert inspector.compare_lines.text() == "Added: before.flow.yaml has no node reviewer"

    win.actions_["compare_stop"].trigger()
    assert scene_items(win) == before  # no ghost left behind, nothing moved
    assert all(i.diff_mark is None for i in (*nodes.values(), *win.scene.edges.values()))
    assert inspector.compare_header.isHidden() and inspector.compare_lines.isHidden()
    assert not win.info.isVisible() and not win.actions_["compare_stop"].isEnabled()
    assert dumps_workflow(win.editor.model.doc) == text
    assert win.editor.undo_stack.count() == steps and not win.file.is_modified()


def test_an_edit_while_comparing_is_compared_again(example_window, other) -> None:
    win = example_window
    win.compare.with_path(other)
    win.editor.model.remove_node("reviewer")  # the document emits; the overlay follows
    assert "reviewer" not in win.scene.nodes
    assert win.scene.nodes["implementer"].diff_mark == "changed"
    assert [n.id for n in win.compare.overlay.diff.added_nodes] == []
    win.editor.model.move_nodes({"implementer": (900.0, 900.0)})
    assert win.compare.overlay.diff.changed_nodes[0].id == "implementer"
    assert len([i for i in win.scene.items() if isinstance(i, GhostNode)]) == 1
    win.compare.stop()
    assert not [i for i in win.scene.items() if isinstance(i, GhostNode)]


def test_a_broken_file_to_compare_with_is_refused(example_window, tmp_path: Path) -> None:
    win = example_window
    bad = tmp_path / "bad.flow.yaml"
    bad.write_text("name: x\nnodes:\n  - id: a\n    provider: gpt\n", encoding="utf-8")
    assert not win.compare.with_path(bad)
    assert win.compare.overlay is None
    assert "nodes[0].provider: unknown provider 'gpt'" in win.answers["errors"][0]
