"""A subflow node in the editor and in a run: its card, its inside, the breadcrumb back."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton

from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.graph.subflows import resolve_subflows
from desktop.runtime.run_setup import run_created_event
from desktop.store.reducer import fold
from desktop.ui.canvas.scene import SUBFLOW_HINT
from desktop.ui.run.canvas_overlay import CanvasRunOverlay
from desktop.ui.window import EditorWindow
from desktop.views.rerun import document_from_created

EXAMPLE = examples_dir() / "subflow-review.flow.yaml"
RUN = "11111111-2222-3333-4444-555555555555"


def run_state() -> dict:
    doc = load_workflow(EXAMPLE)
    created = run_created_event(doc, RUN, mode="AUTO", global_mode="IMPLEMENTATION",
                                workflow_path=str(EXAMPLE),
                                subflows=resolve_subflows(doc, EXAMPLE))
    return fold(None, {**created, "ts": "2026-01-01T00:00:00.000Z", "seq": 1}).to_json_dict()


def node_id_of(state: dict, key: str) -> str:
    return next(nid for nid, n in state["nodes"].items() if n["key"] == key)


def test_a_subflow_card_names_its_file(editor_window: EditorWindow):
    assert editor_window.files.open_path(EXAMPLE)
    label, kind, file, hint, _role = editor_window.scene.nodes["review"].raw
    assert (label, kind, file, hint) == ("Review", "Subflow", "review.flow.yaml", SUBFLOW_HINT)


def test_double_click_opens_the_subflow_and_the_breadcrumb_goes_back(
        editor_window: EditorWindow, qtbot):
    assert editor_window.files.open_path(EXAMPLE)
    view = editor_window.view
    card = editor_window.scene.nodes["review"]
    at = view.mapFromScene(card.sceneBoundingRect().center())
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=at)
    pane = editor_window.subflows
    assert pane.isVisible() and not view.isVisible()
    assert pane.breadcrumb.text() == "Write, then review as a subflow \u203a Review"
    inner = pane.level.view.canvas()
    assert list(inner.nodes) == ["reviewer", "tester"]
    assert pane.level.file == Path(EXAMPLE).resolve().parent / "review.flow.yaml"
    back = pane.breadcrumb.findChildren(QToolButton)
    assert [b.text() for b in back] == ["Write, then review as a subflow"]
    qtbot.mouseClick(back[0], Qt.MouseButton.LeftButton)
    assert not pane.isVisible() and view.isVisible() and pane.level is None


def test_the_open_subflow_command_opens_the_selected_one(editor_window: EditorWindow):
    assert editor_window.files.open_path(EXAMPLE)
    editor_window.actions_["open_subflow"].trigger()
    assert "Select one subflow node" in editor_window.statusBar().currentMessage()
    editor_window.scene.select(["review"])
    editor_window.actions_["open_subflow"].trigger()
    assert editor_window.subflows.isVisible()
    assert list(editor_window.subflows.level.view.canvas().nodes) == ["reviewer", "tester"]
    editor_window.subflows.back_to(0)
    assert editor_window.view.isVisible()


def test_a_subflow_without_a_saved_file_says_why_it_cannot_open(editor_window: EditorWindow):
    editor_window.editor.model.reset(load_workflow(EXAMPLE).model_copy())
    assert editor_window.file.path is None
    assert not editor_window.open_subflow("review")
    assert "Save the workflow first" in editor_window.statusBar().currentMessage()


def test_in_a_run_the_inner_cards_follow_the_run_and_the_top_shows_none_of_them(
        editor_window: EditorWindow):
    state = run_state()
    review, tester = node_id_of(state, "review"), node_id_of(state, "review/tester")
    top = CanvasRunOverlay(editor_window.scene, editor_window)
    editor_window.files.open_path(EXAMPLE)
    top.apply_state(state)
    assert set(top.badges) == {node_id_of(state, "writer"), review}
    assert top.runtime_nodes == {}  # the inner nodes are not drawn as run-time additions
    pane = editor_window.subflows
    pane.open(document_from_created(state, review), "Review", scope=review, state=state)
    overlay = pane.level.overlay
    assert set(overlay.badges) == {node_id_of(state, "review/reviewer"), tester}
    state["nodes"][tester]["status"] = "running"
    pane.apply_state(state)
    assert overlay.badges[tester].status == "running"
    top.apply_state(state)
    assert top.badges[review].status == "running"  # derived from the inside
    pane.back_to(0)
    top.clear()
