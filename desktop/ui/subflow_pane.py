"""The graph inside a subflow node, shown in place of the canvas, with a breadcrumb back.

Without a run the inner graph is read from the subflow's file; with a run shown, it
comes from the run's own state (what the run recorded, nodes keyed as the subflow's
file names them) and a run overlay scoped to the subflow node keeps its cards live.
The inner graph is for looking, not editing: edit the subflow by opening its file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QMouseEvent, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from desktop.graph.document import WorkflowDocument
from desktop.ui.canvas.scene import CanvasScene
from desktop.ui.canvas.view import CanvasView
from desktop.ui.editor import Editor
from desktop.ui.theme import Theme

if TYPE_CHECKING:  # loaded with the first run shown inside a subflow
    from desktop.ui.run.canvas_overlay import CanvasRunOverlay
    from desktop.views.state import RunProjection

SEPARATOR = "\u203a"  # a single right-pointing angle quotation mark


class Breadcrumb(QWidget):
    """``parent > review > inner``: every name but the last goes back to its level."""

    levelChosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("subflowBreadcrumb")
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(12, 4, 12, 4)
        self.names: list[str] = []

    def set_path(self, names: list[str]) -> None:
        """Show ``names``, the top level first."""
        while self.row.count():
            widget = self.row.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.names = list(names)
        for level, name in enumerate(names):
            if level:
                self.row.addWidget(QLabel(SEPARATOR))
            if level == len(names) - 1:
                here = QLabel(f"<b>{name}</b>")
                here.setTextFormat(here.textFormat().RichText)
                self.row.addWidget(here)
            else:
                back = QToolButton()
                back.setText(name)
                back.setAutoRaise(True)
                back.setToolTip(f"Back to {name}")
                back.clicked.connect(lambda _=False, n=level: self.levelChosen.emit(n))
                self.row.addWidget(back)
        self.row.addStretch(1)

    def text(self) -> str:
        """The path as one line of text: ``parent > review`` (with the separator)."""
        return f" {SEPARATOR} ".join(self.names)


class InnerView(CanvasView):
    """A look-only canvas: no edits; a double-click on a subflow node opens it.

    It is opened before the layout gives it its size, so it fits the graph again each
    time its size changes, until the person zooms or pans it themselves."""

    subflowOpened = Signal(str)

    def __init__(self, scene: CanvasScene) -> None:
        super().__init__(scene)
        self.setInteractive(False)
        self.fits_itself = True

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.fits_itself:
            self.fit()

    def zoom_in(self) -> None:
        self.fits_itself = False
        super().zoom_in()

    def zoom_out(self) -> None:
        self.fits_itself = False
        super().zoom_out()

    def reset_zoom(self) -> None:
        self.fits_itself = False
        super().reset_zoom()

    def wheelEvent(self, event: QWheelEvent) -> None:
        self.fits_itself = False
        super().wheelEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.fits_itself = False
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        scene = self.scene()
        found = scene.subflow_at(self.mapToScene(event.position().toPoint())) \
            if isinstance(scene, CanvasScene) else None
        if found is not None:
            self.subflowOpened.emit(found)
            return
        super().mouseDoubleClickEvent(event)


@dataclass
class Level:
    """One subflow opened: its graph, where it came from, and its live overlay."""

    title: str
    view: InnerView
    file: Path | None  # the subflow's file, when read from disk
    scope: str | None  # the subflow node's id in the run shown, when there is one
    overlay: CanvasRunOverlay | None


class SubflowPane(QWidget):
    """A breadcrumb and the inner graph of the deepest subflow opened."""

    closed = Signal()  # back at the top: show the workflow's own canvas again
    zoomChanged = Signal(float)  # the zoom of the inner graph on screen

    def __init__(self, theme: Theme, top_title: Callable[[], str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("subflowPane")
        self.theme = theme
        self.top_title = top_title
        self.levels: list[Level] = []
        self.breadcrumb = Breadcrumb()
        self.breadcrumb.levelChosen.connect(self.back_to)
        self.box = QVBoxLayout(self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSpacing(0)
        self.box.addWidget(self.breadcrumb)
        self.hide()

    @property
    def level(self) -> Level | None:
        """The deepest subflow open, or None at the top."""
        return self.levels[-1] if self.levels else None

    def open(self, doc: WorkflowDocument, title: str, *, file: Path | None = None,
             scope: str | None = None, state: dict | None = None,
             source: RunProjection | None = None) -> InnerView:
        """Show ``doc``, the graph inside a subflow node, one level deeper; with ``scope``
        (the node's run id) its cards follow the run's ``state`` (folded by ``source``)."""
        editor = Editor(doc, self)
        scene = CanvasScene(editor, self.theme, editor)
        view = InnerView(scene)
        view.setObjectName("subflowCanvas")
        overlay = None
        if scope is not None:
            from desktop.ui.run.canvas_overlay import CanvasRunOverlay

            overlay = CanvasRunOverlay(scene, view)
            overlay.scope = scope
            overlay.source = source
            overlay.apply_state(state)
        if self.level is not None:
            self.level.view.hide()
        self.levels.append(Level(title, view, file, scope, overlay))
        view.zoomChanged.connect(self.zoomChanged)
        self.box.addWidget(view, 1)
        self._show_path()
        self.show()
        view.fit()
        return view

    def apply_state(self, state: dict | None) -> None:
        """The run moved: every open level's cards follow it."""
        for level in self.levels:
            if level.overlay is not None:
                level.overlay.apply_state(state)

    def back_to(self, depth: int) -> None:
        """Close the levels deeper than ``depth`` (0: back to the workflow itself)."""
        while len(self.levels) > depth:
            level = self.levels.pop()
            if level.overlay is not None:
                level.overlay.clear()
            level.view.hide()
            level.view.deleteLater()
        if self.level is not None:
            self.level.view.show()
            self._show_path()
            self.zoomChanged.emit(self.level.view.zoom())
            return
        self.hide()
        self.closed.emit()

    def _show_path(self) -> None:
        self.breadcrumb.set_path([self.top_title(), *(lv.title for lv in self.levels)])
