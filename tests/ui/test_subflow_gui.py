"""A subflow node in the editor and in a run: its card, its inside, the breadcrumb back."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
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


def test_an_opened_subflow_fits_its_real_size_and_the_view_commands_act_on_it(
        editor_window: EditorWindow, qtbot):
    assert editor_window.files.open_path(EXAMPLE)
    assert editor_window.open_subflow("review")
    inner = editor_window.subflows.level.view
    qtbot.waitUntil(lambda: inner.viewport().width() > 600)
    # two cards in a window this size fit at full size, names readable (not the overview)
    qtbot.waitUntil(lambda: abs(inner.zoom() - 1.0) < 1e-6)
    shown = inner.viewport().rect()
    for card in inner.canvas().nodes.values():
        assert shown.contains(inner.mapFromScene(card.sceneBoundingRect()).boundingRect())
    label = editor_window.zoom_label
    editor_window.actions_["zoom_out"].trigger()
    assert inner.zoom() < 1.0 and editor_window.view.zoom() == 1.0
    assert label.text() == f"{round(inner.zoom() * 100)}%"
    editor_window.actions_["fit"].trigger()
    assert abs(inner.zoom() - 1.0) < 1e-6 and label.text() == "100%"
    editor_window.actions_["zoom_out"].trigger()
    editor_window.resize(1300, 820)  # a zoom the person chose is kept as the window changes
    qtbot.waitUntil(lambda: inner.viewport().width() > 640)
    assert inner.zoom() < 1.0
    editor_window.subflows.back_to(0)
    assert label.text() == f"{round(editor_window.view.zoom() * 100)}%"


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


def saved_example(folder: Path) -> Path:
    """The subflow example and its review file, copied to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("subflow-review.flow.yaml", "review.flow.yaml"):
        shutil.copy(examples_dir() / name, folder / name)
    return folder / "subflow-review.flow.yaml"


def palette_item(window: EditorWindow, title: str):
    tree = window.palette_panel.tree
    for group in (tree.topLevelItem(i) for i in range(tree.topLevelItemCount())):
        for item in (group.child(j) for j in range(group.childCount())):
            if item.text(0) == title:
                return item
    raise AssertionError(f"the palette has no {title!r}")


def answer_open(window: EditorWindow, monkeypatch, path: Path | str) -> list[str]:
    """Answer the window's "open a file" question with ``path``; the captions asked."""
    asked: list[str] = []

    def open_path(caption: str = "", *_args: object) -> str:
        asked.append(caption)
        return str(path)

    monkeypatch.setattr(window.ask, "open_path", open_path)
    return asked


def test_the_palettes_subflow_entry_adds_a_node_whose_file_is_relative_to_the_workflow(
        editor_window: EditorWindow, monkeypatch, tmp_path: Path):
    parent = saved_example(tmp_path / "flows")
    assert editor_window.files.open_path(parent)
    other = tmp_path / "flows" / "more" / "checks.flow.yaml"
    other.parent.mkdir()
    shutil.copy(examples_dir() / "review.flow.yaml", other)
    asked = answer_open(editor_window, monkeypatch, other)
    before = editor_window.editor.model.doc.model_copy(deep=True)
    tree = editor_window.palette_panel.tree
    tree.itemActivated.emit(palette_item(editor_window, "Subflow\u2026"), 0)
    assert asked == ["Choose Subflow"]
    node = editor_window.editor.model.node("checks")
    assert node is not None and (node.kind, node.flow) == ("subflow", "more/checks.flow.yaml")
    assert editor_window.inspector.target == "checks"  # selected, shown in the inspector
    editor_window.editor.undo_stack.undo()
    assert editor_window.editor.model.doc == before
    editor_window.editor.undo_stack.redo()
    assert editor_window.editor.model.node("checks").flow == "more/checks.flow.yaml"
    assert editor_window.open_subflow("checks")  # the path reads back to the file chosen
    assert editor_window.subflows.level.file == other.resolve()


def test_an_unsaved_workflow_names_its_subflow_by_absolute_path_and_a_cancel_adds_none(
        editor_window: EditorWindow, monkeypatch, tmp_path: Path):
    answer_open(editor_window, monkeypatch, "")
    editor_window.pickers.add_from_palette({"kind": "subflow", "name": "subflow"})
    assert editor_window.editor.model.doc.nodes == []
    chosen = saved_example(tmp_path).parent / "review.flow.yaml"
    answer_open(editor_window, monkeypatch, chosen)
    editor_window.pickers.add_from_palette({"kind": "subflow", "name": "subflow"})
    [node] = editor_window.editor.model.doc.nodes
    assert (node.id, node.label, node.flow) == ("review", "Review", chosen.resolve().as_posix())
    assert node.entry  # the first node, as for any node
    assert editor_window.open_subflow("review")  # no file of its own needed to open it


def test_the_inspector_shows_a_subflows_file_instead_of_the_agent_fields(
        editor_window: EditorWindow, monkeypatch, qtbot, tmp_path: Path):
    parent = saved_example(tmp_path / "flows")
    assert editor_window.files.open_path(parent)
    inspector = editor_window.inspector
    agent_only = [inspector.widgets[("node", "provider")][1],
                  inspector.widgets[("config", "instructions")][1],
                  inspector.widgets[("config", "model")][1]]
    editor_window.scene.select(["writer"])
    assert inspector.subflow.isHidden()
    assert all(w.isVisibleTo(inspector) for w in agent_only)
    editor_window.scene.select(["review"])
    assert not inspector.subflow.isHidden()
    assert inspector.subflow.file.text() == "review.flow.yaml"
    assert not any(w.isVisibleTo(inspector) for w in agent_only)
    assert inspector.widgets[("node", "label")][1].isVisibleTo(inspector)

    renamed = tmp_path / "flows" / "second-review.flow.yaml"
    shutil.copy(tmp_path / "flows" / "review.flow.yaml", renamed)
    answer_open(editor_window, monkeypatch, renamed)
    qtbot.mouseClick(inspector.subflow.change, Qt.MouseButton.LeftButton)
    assert editor_window.editor.model.node("review").flow == "second-review.flow.yaml"
    assert inspector.subflow.file.text() == "second-review.flow.yaml"
    assert editor_window.editor.undo_stack.undoText() == "Change subflow of review"
    editor_window.editor.undo_stack.undo()
    assert editor_window.editor.model.node("review").flow == "review.flow.yaml"
    assert inspector.subflow.file.text() == "review.flow.yaml"

    qtbot.mouseClick(inspector.subflow.open, Qt.MouseButton.LeftButton)
    assert editor_window.subflows.isVisible()
    assert editor_window.subflows.level.file == (tmp_path / "flows" / "review.flow.yaml")
    editor_window.subflows.back_to(0)


def test_a_workflow_cannot_choose_itself_as_its_subflow(
        editor_window: EditorWindow, monkeypatch, tmp_path: Path):
    parent = saved_example(tmp_path / "flows")
    assert editor_window.files.open_path(parent)
    answer_open(editor_window, monkeypatch, parent)
    editor_window.scene.select(["review"])
    editor_window.inspector.subflow.change.click()
    assert editor_window.editor.model.node("review").flow == "review.flow.yaml"
    assert "cannot run itself" in editor_window.statusBar().currentMessage()


def test_save_as_in_another_folder_keeps_the_subflow_reference_working(
        editor_window: EditorWindow, tmp_path: Path):
    source = tmp_path / "here"
    source.mkdir()
    for name in ("subflow-review.flow.yaml", "review.flow.yaml"):
        shutil.copy(examples_dir() / name, source / name)
    assert editor_window.files.open_path(source / "subflow-review.flow.yaml")
    elsewhere = tmp_path / "there" / "deeper" / "copy.flow.yaml"
    elsewhere.parent.mkdir(parents=True)
    editor_window.file.save(elsewhere)
    saved = load_workflow(elsewhere)
    [review] = [n for n in saved.nodes if n.kind == "subflow"]
    assert review.flow == "../../here/review.flow.yaml"
    assert resolve_subflows(saved, elsewhere)  # the file it names is found from there
    editor_window.file.save(elsewhere)  # saved again in place: nothing moves
    assert load_workflow(elsewhere).nodes[1].flow == "../../here/review.flow.yaml"


def test_a_connection_dropped_on_empty_canvas_can_add_a_subflow_connected(
        editor_window: EditorWindow, monkeypatch, tmp_path: Path):
    assert editor_window.files.open_path(saved_example(tmp_path / "flows"))
    other = tmp_path / "flows" / "checks.flow.yaml"
    shutil.copy(examples_dir() / "review.flow.yaml", other)
    answer_open(editor_window, monkeypatch, other)
    model = editor_window.editor.model
    edges = len(model.doc.edges)
    editor_window.pickers.quick_add_connected("writer", QPointF(900, 900))
    QTest.keyClicks(editor_window.popup.edit, "subflow")
    QTest.keyClick(editor_window.popup.edit, Qt.Key.Key_Return)
    assert model.node("checks").flow == "checks.flow.yaml"
    [edge] = model.doc.edges[edges:]
    assert (edge.from_, edge.to, edge.type) == ("writer", "checks", "handoff")
    assert model.edge_keys()[-1] in editor_window.scene.edges  # drawn on the canvas too
