"""Sticky notes and groups on the canvas: made, edited in place, dragged (a group takes
what lies in it along), deleted, each as one undo step, and saved with the workflow."""

from __future__ import annotations

from pathlib import Path

from canvas_helpers import drag, node_center, view_point
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtTest import QTest

from desktop.graph.io import load_workflow
from desktop.ui import theme as themes
from desktop.ui.canvas.decorations import TITLE_H


def _pos(win, node_id):
    p = win.editor.model.node(node_id).position
    return p.x, p.y


def _box(win, kind, item_id):
    return win.editor.model.decoration(kind, item_id).box


def test_a_note_is_written_in_place_saved_and_read_back(example_window, tmp_path: Path):
    win = example_window
    stack = win.editor.undo_stack
    win.view.setFocus()
    win.actions_["add_note"].trigger()  # opens the note for typing at once
    (key,) = win.scene.decorations.items
    assert key[0] == "note"
    note = win.scene.decorations.items[key]
    assert note.inline is not None
    QTest.keyClicks(win.view.viewport(), "Ship it")
    QTest.keyClick(win.view.viewport(), Qt.Key.Key_Return)  # a newline in a note
    QTest.keyClicks(win.view.viewport(), "after review")
    win.scene.setFocusItem(None)  # clicking elsewhere commits
    assert win.editor.model.decoration("note", key[1]).text == "Ship it\nafter review"
    assert stack.count() == 2  # add, then the text
    stack.undo()
    assert win.editor.model.decoration("note", key[1]).text == ""
    stack.redo()
    win.file.save(win.file.path)
    saved = load_workflow(win.file.path)
    assert [(n.id, n.text) for n in saved.notes] == [(key[1], "Ship it\nafter review")]
    win.files.open_path(win.file.path)  # read back: the note is on the canvas again
    assert win.scene.decorations.items[key].text == "Ship it\nafter review"


def test_escape_cancels_an_edit_in_place(example_window):
    win = example_window
    note_id = win.editor.add_note((0, 300), "keep me")
    layer = win.scene.decorations
    win.view.setFocus()
    layer.edit_in_place(layer.items[("note", note_id)])
    QTest.keyClicks(win.view.viewport(), "lost")
    QTest.keyClick(win.view.viewport(), Qt.Key.Key_Escape)
    assert win.editor.model.decoration("note", note_id).text == "keep me"
    assert layer.items[("note", note_id)].inline is None


def test_a_group_frames_the_selection_and_takes_it_along(example_window):
    win = example_window
    win.scene.select(["planner", "implementer"])
    win.actions_["add_group"].trigger()
    (key,) = win.scene.decorations.items
    group = _box(win, *key)
    for node_id in ("planner", "implementer"):
        x, y = _pos(win, node_id)
        assert group.x < x and group.y + TITLE_H < y  # inside, below the title bar
        assert x + 184 < group.x + group.width and y + 72 < group.y + group.height
    assert win.editor.members(key[1])[0] == ["planner", "implementer"]
    note_id = win.editor.add_note((group.x + 60, group.y + group.height - 50), "inside")
    reviewer = _pos(win, "reviewer")
    before = {n: _pos(win, n) for n in ("planner", "implementer")}
    note_before = (_box(win, "note", note_id).x, _box(win, "note", note_id).y)
    stack = win.editor.undo_stack
    steps = stack.count()
    win.scene.select([])
    title = QPointF(group.x + group.width / 2, group.y + TITLE_H / 2)
    drag(win, title, title + QPointF(100, 60))
    moved = _box(win, *key)
    dx, dy = moved.x - group.x, moved.y - group.y
    assert (dx, dy) == (100, 60)
    for node_id, (x, y) in before.items():
        assert _pos(win, node_id) == (x + dx, y + dy)
    assert (_box(win, "note", note_id).x, _box(win, "note", note_id).y) == (
        note_before[0] + dx, note_before[1] + dy)
    assert _pos(win, "reviewer") == reviewer  # outside the group: stays
    assert win.scene.nodes["planner"].pos().x() == before["planner"][0] + dx
    assert stack.count() == steps + 1  # the whole drag is one step
    stack.undo()
    assert (_box(win, *key).x, _box(win, *key).y) == (group.x, group.y)
    assert {n: _pos(win, n) for n in before} == before


def test_clicks_inside_a_group_reach_the_canvas(example_window):
    win = example_window
    group_id = win.editor.add_group((-400, 400))
    box = _box(win, "group", group_id)
    inside = QPointF(box.x + box.width / 2, box.y + box.height / 2)
    # the body is not the group's: a rubber band starts there, and a double-click adds a node
    assert win.scene.itemAt(inside, win.view.transform()) is None
    assert win.scene.itemAt(QPointF(box.x + 20, box.y + 10), win.view.transform()) is \
        win.scene.decorations.items[("group", group_id)]


def test_resize_from_the_corner_is_one_step_and_has_a_minimum(example_window):
    win = example_window
    note_id = win.editor.add_note((0, 400))
    box = _box(win, "note", note_id)
    corner = QPointF(box.x + box.width - 4, box.y + box.height - 4)
    steps = win.editor.undo_stack.count()
    drag(win, corner, corner + QPointF(120, 80))
    grown = _box(win, "note", note_id)
    assert grown.width > box.width + 100 and grown.height > box.height + 60
    assert (grown.x, grown.y) == (box.x, box.y)
    assert win.editor.undo_stack.count() == steps + 1
    drag(win, QPointF(grown.x + grown.width - 4, grown.y + grown.height - 4),
         QPointF(grown.x - 500, grown.y - 500))
    small = _box(win, "note", note_id)
    assert (small.width, small.height) == (80, 50)


def test_delete_takes_notes_nodes_and_groups_in_one_step(example_window):
    win = example_window
    note_id = win.editor.add_note((0, 400), "bye")
    group_id = win.editor.add_group((600, 600))
    layer = win.scene.decorations
    win.scene.select(["reviewer"])
    layer.select([("note", note_id), ("group", group_id)])
    win.view.setFocus()
    steps = win.editor.undo_stack.count()
    win.actions_["delete"].trigger()
    model = win.editor.model
    assert model.doc.notes == [] and model.doc.groups == [] and not model.has_node("reviewer")
    assert layer.items == {}
    assert win.editor.undo_stack.count() == steps + 1
    win.editor.undo_stack.undo()
    assert [n.id for n in model.doc.notes] == [note_id] and model.has_node("reviewer")
    assert set(layer.items) == {("note", note_id), ("group", group_id)}


def test_colour_and_rename_are_undoable(example_window):
    win = example_window
    group_id = win.editor.add_group((0, 500), label="Build")
    win.editor.set_group_label(group_id, "  Build   and test ")
    win.editor.set_decoration_color("group", group_id, "#c9f2d0")
    group = win.editor.model.decoration("group", group_id)
    assert (group.label, group.color) == ("Build and test", "#c9f2d0")
    assert win.scene.decorations.items[("group", group_id)].text == "Build and test"
    win.editor.undo_stack.undo()
    win.editor.undo_stack.undo()
    assert win.editor.model.decoration("group", group_id).label == "Build"


def test_palette_and_quick_add_offer_notes_and_groups(example_window):
    win = example_window
    win.scene.drop_template({"kind": "note", "name": "note"}, QPointF(0, 500))
    win.scene.drop_template({"kind": "group", "name": "group"}, QPointF(500, 500))
    assert len(win.editor.model.doc.notes) == 1 and len(win.editor.model.doc.groups) == 1
    titles = [win.palette_panel.tree.topLevelItem(i).text(0)
              for i in range(win.palette_panel.tree.topLevelItemCount())]
    assert "CANVAS" in titles


def _painted(item) -> QImage:
    """The item painted alone on a transparent picture of its size."""
    image = QImage(int(item.size[0]), int(item.size[1]), QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    item.paint(painter, None)
    painter.end()
    return image


def _dark_pixels(image: QImage, top: int, bottom: int, below: int) -> int:
    """How many pixels in rows top..bottom are darker (lightness) than ``below``."""
    return sum(1 for y in range(top, bottom) for x in range(image.width())
               if image.pixelColor(x, y).alpha() and image.pixelColor(x, y).lightness() < below)


def _light_pixels(image: QImage, top: int, bottom: int, above: int) -> int:
    return sum(1 for y in range(top, bottom) for x in range(image.width())
               if image.pixelColor(x, y).alpha() and image.pixelColor(x, y).lightness() > above)


def test_notes_and_groups_paint_in_both_themes(example_window):
    win = example_window
    note_id = win.editor.add_note((0, 400), "a note")
    group_id = win.editor.add_group((0, 700), label="a group")
    note = win.scene.decorations.items[("note", note_id)]
    group = win.scene.decorations.items[("group", group_id)]
    fills = {}
    for look in (themes.LIGHT, themes.DARK):
        win.apply_theme(look)
        paper = _painted(note)
        fill = paper.pixelColor(paper.width() // 2, paper.height() // 2)  # below the text
        fills[look.dark] = fill
        assert fill.alpha() == 255
        frame = _painted(group)
        title = frame.pixelColor(frame.width() - 30, int(TITLE_H) - 3)  # lower half of the bar
        body = frame.pixelColor(frame.width() // 2, frame.height() // 2)
        assert 0 < body.alpha() < title.alpha(), (body.alpha(), title.alpha())
        text = QColor(look.text)
        if look.dark:  # light text on toned-down paper and on the title bar
            assert fill.lightness() < 128
            assert _light_pixels(paper, 8, 30, fill.lightness() + 60) > 20
            assert _light_pixels(frame, 0, int(TITLE_H), text.lightness() - 40) > 20
        else:  # dark text on the note's own colour and on the title bar
            assert fill == QColor(note.color)
            assert _dark_pixels(paper, 8, 30, fill.lightness() - 60) > 20
            assert _dark_pixels(frame, 0, int(TITLE_H), text.lightness() + 40) > 20
    assert fills[True].lightness() < fills[False].lightness()
    win.apply_theme(themes.LIGHT)


def test_dragging_a_selected_node_takes_selected_notes_along(example_window):
    win = example_window
    note_id = win.editor.add_note((0, 400), "with the planner")
    win.scene.select(["planner"])
    win.scene.decorations.select([("note", note_id)])
    before = _box(win, "note", note_id)
    start = node_center(win, "planner")
    vp = win.view.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view_point(win, start))
    QTest.mouseMove(vp, view_point(win, start + QPointF(40, 40)))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       view_point(win, start + QPointF(40, 40)))
    after = _box(win, "note", note_id)
    assert (after.x - before.x, after.y - before.y) == (40, 40)
