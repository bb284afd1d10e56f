"""Each canvas gesture becomes the right document change, and undoes in one step."""

from canvas_helpers import drag, node_center, out_port, view_point
from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest

from desktop.graph.io import loads_workflow
from desktop.ui.canvas.scene import TEMPLATE_MIME


def pos(win, node_id):
    p = win.editor.model.node(node_id).position
    return p.x, p.y


def test_drag_moves_node_with_grid_snap_as_one_undo_step(example_window):
    win = example_window
    before = pos(win, "planner")
    start = node_center(win, "planner")
    drag(win, start, start + QPointF(47, 33))
    x, y = pos(win, "planner")
    assert (x % 20, y % 20) == (0, 0)  # snapped to the grid
    assert (x, y) != before
    item = win.scene.nodes["planner"]
    assert (item.pos().x(), item.pos().y()) == (x, y)  # scene follows the document
    assert win.editor.undo_stack.count() == 1
    win.actions_["undo"].trigger()
    assert pos(win, "planner") == before


def test_drag_from_port_creates_edge_and_invalid_target_is_refused(example_window):
    win = example_window
    model = win.editor.model
    n = len(model.doc.edges)
    # planner -> reviewer handoff is new: allowed
    drag(win, out_port(win, "planner"), node_center(win, "reviewer"))
    assert len(model.doc.edges) == n + 1
    edge = model.doc.edges[-1]
    assert (edge.from_, edge.to, edge.type) == ("planner", "reviewer", "handoff")
    assert win.scene.selected_edge_keys() == [model.edge_keys()[-1]]
    # the same again is a duplicate: refused, with a message
    drag(win, out_port(win, "planner"), node_center(win, "reviewer"))
    assert len(model.doc.edges) == n + 1
    assert "already" in win.statusBar().currentMessage()
    # onto itself: refused
    drag(win, out_port(win, "planner"), node_center(win, "planner"))
    assert len(model.doc.edges) == n + 1


def test_shift_drag_from_port_creates_report_edge(example_window):
    win = example_window
    drag(win, out_port(win, "implementer"), node_center(win, "planner"),
         Qt.KeyboardModifier.ShiftModifier)
    edge = win.editor.model.doc.edges[-1]
    assert (edge.from_, edge.to, edge.type) == ("implementer", "planner", "report")


def test_click_select_edge_and_delete_then_undo(example_window):
    win = example_window
    model = win.editor.model
    key = model.edge_keys()[0]
    win.scene.select([], [key])
    win.view.setFocus()
    QTest.keyClick(win.view, Qt.Key.Key_Delete)
    assert model.edge(key) is None
    win.actions_["undo"].trigger()
    assert model.edge(key) is not None


def test_rubber_band_selects_several_and_delete_removes_them_with_edges(example_window):
    win = example_window
    a = win.scene.nodes["planner"].sceneBoundingRect().topLeft() - QPointF(30, 30)
    b = win.scene.nodes["implementer"].sceneBoundingRect().bottomRight() + QPointF(10, 10)
    drag(win, a, b)
    assert set(win.scene.selected_node_ids()) == {"planner", "implementer"}
    win.view.setFocus()
    QTest.keyClick(win.view, Qt.Key.Key_Delete)
    assert win.editor.model.node_ids() == ["reviewer"]
    assert win.editor.model.doc.edges == []
    win.actions_["undo"].trigger()
    assert win.editor.model.node_ids() == ["planner", "implementer", "reviewer"]
    assert len(win.editor.model.doc.edges) == 4


def test_ctrl_click_adds_to_selection(example_window):
    win = example_window
    vp = win.view.viewport()
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view_point(win, node_center(win, "planner")))
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                     view_point(win, node_center(win, "reviewer")))
    assert set(win.scene.selected_node_ids()) == {"planner", "reviewer"}
    assert win.inspector.kind == "multi"


def test_multi_selection_drags_together(example_window):
    win = example_window
    win.scene.select(["planner", "reviewer"])
    before = {i: pos(win, i) for i in ("planner", "reviewer", "implementer")}
    start = node_center(win, "planner")
    drag(win, start, start + QPointF(0, 100))
    assert pos(win, "planner")[1] == before["planner"][1] + 100
    assert pos(win, "reviewer")[1] == before["reviewer"][1] + 100
    assert pos(win, "implementer") == before["implementer"]


def test_quick_add_with_tab_adds_node_at_cursor(example_window):
    win = example_window
    win.view.setFocus()
    QTest.mouseMove(win.view.viewport(), view_point(win, QPointF(300, 160)))
    QTest.keyClick(win.view, Qt.Key.Key_Tab)
    assert win.popup.isVisible()
    QTest.keyClicks(win.popup.edit, "test")
    QTest.keyClick(win.popup.edit, Qt.Key.Key_Return)
    new = win.editor.model.doc.nodes[-1]
    assert new.role_template == "tester"
    assert abs(new.position.x + 92 - 300) <= 20 and abs(new.position.y + 36 - 160) <= 20
    assert win.scene.selected_node_ids() == [new.id]


def test_double_click_empty_canvas_opens_quick_add(example_window):
    win = example_window
    QTest.mouseDClick(win.view.viewport(), Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier, view_point(win, QPointF(200, 400)))
    assert win.popup.isVisible()
    win.popup.hide()


def test_drop_role_and_provider_from_palette(example_window):
    win = example_window
    scene = win.scene
    node_id = scene.drop_template({"kind": "role", "name": "investigator"}, QPointF(100, 400))
    assert win.editor.model.node(node_id).role_template == "investigator"
    scene.drop_template({"kind": "provider", "name": "claude"}, node_center(win, node_id))
    assert win.editor.model.node(node_id).provider == "claude"
    data = QMimeData()
    data.setData(TEMPLATE_MIME, b'{"kind": "role", "name": "planner"}')
    assert data.hasFormat(TEMPLATE_MIME)


def test_copy_paste_duplicate_cut_through_clipboard(example_window):
    win = example_window
    model = win.editor.model
    win.scene.select(["planner", "implementer"])
    win.actions_["copy"].trigger()
    text = QGuiApplication.clipboard().text()
    part = loads_workflow(text)  # plain workflow YAML: pastes into any window or editor
    assert [n.id for n in part.nodes] == ["planner", "implementer"]
    assert len(part.edges) == 1
    win.actions_["paste"].trigger()
    assert model.node_ids()[-2:] == ["planner-2", "implementer-2"]
    assert model.doc.edges[-1].from_ == "planner-2"
    assert model.config("planner-2") == model.config("planner")
    assert not model.node("planner-2").entry  # one entry node only
    win.scene.select(["reviewer"])
    win.actions_["duplicate"].trigger()
    assert "reviewer-2" in model.node_ids()
    win.scene.select(["reviewer-2"])
    win.actions_["cut"].trigger()
    assert "reviewer-2" not in model.node_ids()
    win.actions_["paste"].trigger()
    assert "reviewer-2" in model.node_ids()


def test_paste_between_windows(example_window, qtbot, monkeypatch):
    from desktop.ui.window import EditorWindow

    win = example_window
    win.scene.select(["reviewer"])
    win.actions_["copy"].trigger()
    other = EditorWindow()
    monkeypatch.setattr(other.ask, "save_changes", lambda: "discard")
    qtbot.addWidget(other)
    other.actions_["paste"].trigger()
    assert other.editor.model.node_ids() == ["reviewer"]
    other.file.close()


def test_zoom_pan_and_fit(example_window):
    win = example_window
    view = win.view
    view.reset_zoom()
    view.zoom_in()
    assert view.zoom() > 1.0
    view.zoom_out()
    view.zoom_out()
    assert view.zoom() < 1.0
    before = view.visible_scene_rect().center()
    vp = view.viewport()
    QTest.mousePress(vp, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier,
                     vp.rect().center())
    QTest.mouseMove(vp, vp.rect().center() + QPointF(-120, 0).toPoint())
    QTest.mouseRelease(vp, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier,
                       vp.rect().center() + QPointF(-120, 0).toPoint())
    assert view.visible_scene_rect().center().x() > before.x()
    win.actions_["fit"].trigger()
    visible = view.visible_scene_rect()
    for item in win.scene.nodes.values():
        assert visible.contains(item.sceneBoundingRect())


def test_wheel_zooms_towards_cursor(example_window):
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QWheelEvent

    win = example_window
    view = win.view
    target = node_center(win, "reviewer")
    at = view_point(win, target)
    event = QWheelEvent(QPointF(at), QPointF(view.viewport().mapToGlobal(at)), QPoint(0, 0),
                        QPoint(0, 240), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QGuiApplication.sendEvent(view.viewport(), event)
    assert view.zoom() > 1.2
    after = view.mapToScene(at)
    assert abs(after.x() - target.x()) < 3 and abs(after.y() - target.y()) < 3


def test_space_drag_pans(example_window):
    win = example_window
    view = win.view
    view.setFocus()
    before = view.visible_scene_rect().center()
    QTest.keyPress(view, Qt.Key.Key_Space)
    vp = view.viewport()
    c = vp.rect().center()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, c)
    QTest.mouseMove(vp, c + QPointF(0, -100).toPoint())
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       c + QPointF(0, -100).toPoint())
    QTest.keyRelease(view, Qt.Key.Key_Space)
    assert view.visible_scene_rect().center().y() > before.y()
    assert win.editor.undo_stack.count() == 0  # panning is not an edit


def test_a_spawned_node_sits_below_the_graph_and_fit_shows_it(example_window):
    """A node the run spawned goes below the document's graph, right of the node that
    spawned it, so that the dashed line between them crosses no other card; Fit brings
    it in view with the document's own nodes."""
    from PySide6.QtCore import QLineF

    from desktop.ui.run.canvas_overlay import CanvasRunOverlay

    win = example_window
    overlay = CanvasRunOverlay(win.scene)
    nodes = {key: {"id": key, "key": key, "label": key, "status": "idle"}
             for key in win.scene.nodes}
    nodes["spawned"] = {"id": "spawned", "label": "Spawned", "status": "idle",
                        "addedAtRuntime": True}
    edge = {"id": "e", "from": "planner", "to": "spawned", "addedAtRuntime": True}
    win.view.reset_zoom()
    win.view.centerOn(win.scene.nodes["planner"].sceneBoundingRect().center())
    overlay.apply_state({"id": "r", "nodes": nodes, "edges": {"e": edge}})
    [added] = overlay.runtime_nodes.values()
    cards = {key: item.sceneBoundingRect() for key, item in win.scene.nodes.items()}
    assert added.sceneBoundingRect().top() > max(r.bottom() for r in cards.values())
    assert added.sceneBoundingRect().left() > cards["planner"].right()
    [line] = overlay.runtime_edges.values()
    path = QLineF(line.a, line.b)
    for key, rect in cards.items():
        if key != "planner":  # the line leaves the spawner's own port
            assert not any(path.intersects(side)[0] == QLineF.IntersectionType.BoundedIntersection
                           for side in (QLineF(rect.topLeft(), rect.bottomLeft()),
                                        QLineF(rect.topLeft(), rect.topRight()),
                                        QLineF(rect.topRight(), rect.bottomRight()),
                                        QLineF(rect.bottomLeft(), rect.bottomRight()))), key
    assert not win.view.visible_scene_rect().contains(added.sceneBoundingRect())
    win.actions_["fit"].trigger()
    visible = win.view.visible_scene_rect()
    assert visible.contains(added.sceneBoundingRect())
    for rect in cards.values():
        assert visible.contains(rect)
    overlay.apply_state(None)
