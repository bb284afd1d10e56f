"""Right-click on the canvas with no run shown: a node's menu edits that node (it becomes
the selection first), an edge's deletes that edge, empty space offers what adds to the
canvas; a subflow node offers to open it, and two selected nodes to be connected."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF
from PySide6.QtWidgets import QGraphicsSceneContextMenuEvent, QMenu

from desktop.graph.document import WorkflowNode


def right_click(window, at: QPointF) -> QMenu:
    event = QGraphicsSceneContextMenuEvent(QEvent.Type.GraphicsSceneContextMenu)
    event.setScenePos(at)
    event.setScreenPos(QPoint(20, 20))
    window.scene.contextMenuEvent(event)
    assert event.isAccepted()
    menu = window.canvas_menus.shown
    assert menu is not None
    return menu


def shown(menu: QMenu) -> list[str]:
    """The texts of its visible actions and section titles (plain separators left out)."""
    return [a.text().replace("&", "") for a in menu.actions()
            if a.isVisible() and a.text()]


def action(menu: QMenu, text: str):
    return next(a for a in menu.actions() if a.text().replace("&", "") == text)


def card(window, node_id: str) -> QPointF:
    return window.scene.nodes[node_id].sceneBoundingRect().center()


def test_a_node_right_clicked_is_selected_and_its_menu_deletes_it_undoably(
        example_window) -> None:
    win = example_window
    win.scene.select(["planner"])
    menu = right_click(win, card(win, "reviewer"))
    assert win.scene.selected_node_ids() == ["reviewer"]  # what was clicked, not the rest
    assert shown(menu) == ["Reviewer", "Rename Node", "Duplicate", "Cut", "Copy", "Delete",
                           "Group Selection", "Fit Selection"]
    action(menu, "Delete").trigger()
    assert win.editor.model.node("reviewer") is None
    win.editor.undo_stack.undo()
    assert win.editor.model.node("reviewer") is not None


def test_two_selected_nodes_are_offered_a_connection_and_keep_their_selection(
        example_window) -> None:
    win = example_window
    before = len(win.editor.model.doc.edges)
    win.scene.select(["planner", "reviewer"])
    menu = right_click(win, card(win, "reviewer"))
    assert sorted(win.scene.selected_node_ids()) == ["planner", "reviewer"]
    assert shown(menu)[1:3] == ["Connect Selected (Handoff)", "Connect Selected (Report)"]
    action(menu, "Connect Selected (Handoff)").trigger()
    assert len(win.editor.model.doc.edges) == before + 1


def test_a_subflow_node_offers_to_open_it(example_window) -> None:
    win = example_window
    win.editor.model.add_node(WorkflowNode(id="sub", kind="subflow", flow="review.flow.yaml",
                                           position={"x": 0, "y": 300}))
    menu = right_click(win, card(win, "sub"))
    assert shown(menu)[:2] == ["sub", "Open Subflow"]


def test_an_edge_right_clicked_is_selected_and_its_menu_deletes_it(example_window) -> None:
    win = example_window
    key = win.scene.selected_edge_keys() or next(iter(win.scene.edges))
    line = win.scene.edges[key].shape()
    at = line.pointAtPercent(0.5)
    menu = right_click(win, at)
    assert win.scene.selected_edge_keys() == [key] and win.scene.selected_node_ids() == []
    edge = win.editor.model.edge(key)
    ends = [win.editor.model.node(n).label for n in (edge.from_, edge.to)]
    other = "report" if edge.type == "handoff" else "handoff"
    assert shown(menu) == [" → ".join(ends), f"Make it a {other} edge", "Delete"]
    action(menu, f"Make it a {other} edge").trigger()
    assert win.editor.model.edge(key).type == other
    win.editor.undo_stack.undo()
    assert win.editor.model.edge(key).type == edge.type
    action(menu, "Delete").trigger()
    assert key not in win.scene.edges


def test_empty_canvas_offers_what_adds_to_it(example_window) -> None:
    win = example_window
    far = win.scene.itemsBoundingRect().bottomRight() + QPointF(400, 400)
    menu = right_click(win, far)
    assert shown(menu) == ["Add Node…", "Paste", "Add Sticky Note", "Select All",
                           "Auto-Layout", "Fit to Window"]


def test_a_note_keeps_its_own_menu(example_window, monkeypatch) -> None:
    win = example_window
    note_id = win.editor.add_note((0.0, 400.0))
    item = win.scene.decorations.items[("note", note_id)]
    asked: list = []
    monkeypatch.setattr(win.scene.decorations, "context_menu",
                        lambda box, _at: asked.append(box))
    event = QGraphicsSceneContextMenuEvent(QEvent.Type.GraphicsSceneContextMenu)
    event.setScenePos(item.sceneBoundingRect().center())
    event.setScreenPos(QPoint(20, 20))
    win.scene.contextMenuEvent(event)
    assert asked == [item] and win.canvas_menus.shown is None
