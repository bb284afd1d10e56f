"""What an empty canvas says: how to put the first node on it.

A new workflow opens on a bare grid, with "the workflow has no nodes" in the Problems
panel and nothing on the canvas saying what to do about it. This text, centred on the
canvas in the theme's muted colour, names the three ways in; it goes away with the
first node and comes back when the last one is deleted."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsView, QLabel, QVBoxLayout

from desktop.ui.canvas.scene import CanvasScene

TEXT = ("An empty workflow. Double-click the canvas or press Add Node, drag a role from the "
        "Palette, or start from a ready graph with File > New from Template (Ctrl+Alt+N).")


def empty_hint(view: QGraphicsView, scene: CanvasScene) -> QLabel:
    """The hint laid over ``view``'s middle, shown while ``scene`` has no node."""
    label = QLabel(TEXT)
    label.setObjectName("emptyCanvasHint")
    label.setProperty("role", "muted")
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setMaximumWidth(420)
    # clicks, drops and the wheel go to the canvas under it
    label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    layout = QVBoxLayout(view.viewport())
    layout.addWidget(label, 0, Qt.AlignmentFlag.AlignCenter)

    def follow() -> None:
        empty = not scene.nodes
        if label.isHidden() == empty:  # only a change of state touches the widget
            label.setVisible(empty)

    scene.changed.connect(lambda _rects: follow())
    follow()
    return label
