"""Fixtures for editor tests: a shown EditorWindow with dialogs answered by the test."""

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from shiboken6 import isValid

from desktop.graph.resources import examples_dir
from desktop.ui.window import EditorWindow

EXAMPLE = examples_dir() / "plan-implement-review.flow.yaml"


@pytest.fixture
def editor_window(qtbot, monkeypatch) -> EditorWindow:
    win = EditorWindow()
    win.answers = {"save_changes": "discard"}  # type: ignore[attr-defined]
    monkeypatch.setattr(win, "ask_save_changes", lambda: win.answers["save_changes"])
    monkeypatch.setattr(win, "show_error", lambda title, text: win.answers.setdefault(
        "errors", []).append(text))
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    yield win
    if isValid(win):
        win.file.close()


@pytest.fixture
def example_window(editor_window: EditorWindow, tmp_path: Path) -> EditorWindow:
    path = tmp_path / EXAMPLE.name
    path.write_bytes(EXAMPLE.read_bytes())
    assert editor_window.open_path(path)
    editor_window.view.reset_zoom()
    editor_window.view.centerOn(QPointF(400, 40))
    return editor_window


def view_point(win: EditorWindow, scene_point: QPointF) -> QPoint:
    return win.view.mapFromScene(scene_point)


def drag(win: EditorWindow, start: QPointF, end: QPointF, modifiers=Qt.KeyboardModifier.NoModifier,
         steps: int = 6) -> None:
    """Press at scene point ``start``, move in steps, release at ``end``."""
    vp = win.view.viewport()
    a, b = view_point(win, start), view_point(win, end)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, modifiers, a)
    for i in range(1, steps + 1):
        p = a + (b - a) * i / steps
        QTest.mouseMove(vp, QPoint(round(p.x()), round(p.y())))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, modifiers, b)


def node_center(win: EditorWindow, node_id: str) -> QPointF:
    return win.scene.nodes[node_id].sceneBoundingRect().center()


def out_port(win: EditorWindow, node_id: str) -> QPointF:
    item = win.scene.nodes[node_id]
    return item.pos() + item.out_port()
