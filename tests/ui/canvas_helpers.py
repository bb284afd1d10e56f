"""Mouse helpers for canvas tests: scene points to viewport events."""

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from desktop.ui.window import EditorWindow


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
