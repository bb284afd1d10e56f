"""Sticky notes and groups on the canvas, kept in step with the document model.

Items hold no document state: a drag, a resize or an edit in place becomes an Editor
call (one undoable command), and the items then follow the model's signals. A group
is drawn behind nodes and edges and is grabbed by its title bar or its rim, so a rubber
band still works inside it; dragging it moves the nodes and notes whose centres lie in it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsSceneMouseEvent,
    QGraphicsTextItem,
    QMenu,
    QStyleOptionGraphicsItem,
    QWidget,
)
from shiboken6 import isValid

from desktop.graph.decorations import NodeGroup, StickyNote
from desktop.ui.document import GROUP, NOTE

if TYPE_CHECKING:
    from desktop.ui.canvas.scene import CanvasScene

COLORS = {  # stored in the document; the dark theme draws them toned down
    "Yellow": "#fff1a6", "Green": "#c9f2d0", "Blue": "#cfe3ff", "Pink": "#ffd3e2",
    "Purple": "#e3d7ff", "Grey": "#e4e7ec",
}
NOTE_DEFAULT = COLORS["Yellow"]
GROUP_DEFAULT = "#8aa0c0"
GRIP = 14.0  # the resize corner
TITLE_H = 30.0
RIM = 6.0
NOTE_Z, GROUP_Z = 5.0, -10.0
Key = tuple[str, str]


def _mix(color: str, canvas: str, keep: float) -> QColor:
    a, b = QColor(color), QColor(canvas)
    return QColor(round(a.red() * keep + b.red() * (1 - keep)),
                  round(a.green() * keep + b.green() * (1 - keep)),
                  round(a.blue() * keep + b.blue() * (1 - keep)))


class InlineText(QGraphicsTextItem):
    """Edits a note's text or a group's title in place; Esc cancels, leaving commits."""

    def __init__(self, text: str, width: float, done: Callable[[str | None], None],
                 parent: QGraphicsItem, one_line: bool = False) -> None:
        super().__init__(parent)
        self.setPlainText(text)
        self.setTextWidth(width)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextEditorInteraction)
        self._done, self._one_line, self._finished = done, one_line, False

    def finish(self, text: str | None) -> None:
        if not self._finished:
            self._finished = True
            self._done(text)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.finish(None)
            return
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and (self._one_line or event.modifiers() & Qt.KeyboardModifier.ControlModifier):
            self.finish(self.toPlainText())
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.finish(self.toPlainText())


def _discard(item: QGraphicsItem) -> None:
    """Remove an item that may already be gone with its parent or a rebuilt scene."""
    if isValid(item) and item.scene() is not None:
        item.scene().removeItem(item)


class _BoxItem(QGraphicsItem):
    """What notes and groups share: a box, a colour, selection, a resize corner, drags."""

    kind = NOTE

    def __init__(self, item_id: str, layer: DecorationLayer) -> None:
        super().__init__()
        self.item_id = item_id
        self.layer = layer
        self.size = (0.0, 0.0)
        self.color = ""
        self.text = ""
        self._gesture: str | None = None
        self.inline: InlineText | None = None
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)

    @property
    def key(self) -> Key:
        return (self.kind, self.item_id)

    def set_content(self, item: StickyNote | NodeGroup, text: str) -> None:
        size = (item.box.width, item.box.height)
        if size != self.size:
            self.prepareGeometryChange()
            self.size = size
        self.setPos(item.box.x, item.box.y)
        self.color = item.color or (NOTE_DEFAULT if self.kind == NOTE else GROUP_DEFAULT)
        self.text = text
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, *self.size).adjusted(-2, -2, 2, 2)

    def _grip(self) -> QRectF:
        w, h = self.size
        return QRectF(w - GRIP, h - GRIP, GRIP, GRIP)

    def _draw_grip(self, painter: QPainter, pen: QPen) -> None:
        w, h = self.size
        painter.setPen(pen)
        for d in (4.0, 8.0):
            painter.drawLine(QPointF(w - d, h - 2), QPointF(w - 2, h - d))

    def hoverMoveEvent(self, event) -> None:
        on_grip = self._grip().contains(event.pos())
        self.setCursor(Qt.CursorShape.SizeFDiagCursor if on_grip else
                       Qt.CursorShape.ArrowCursor)

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        super().mousePressEvent(event)  # selection, as for nodes
        if self.layer.editor.read_only:
            self._gesture = None  # a run's graph: selected, never moved or resized
        elif self._grip().contains(event.pos()):
            self._gesture = "resize"
        else:
            self._gesture = "move"
            self.layer.begin_drag(self, event.scenePos())
        event.accept()

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._gesture == "resize":
            p = event.pos()
            self.layer.editor.resize_decoration(self.kind, self.item_id, p.x(), p.y())
        elif self._gesture == "move":
            self.layer.drag_to(event.scenePos(), event.modifiers())

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        self._gesture = None
        self.layer.end_drag()
        super().mouseReleaseEvent(event)

    def contextMenuEvent(self, event) -> None:
        self.layer.context_menu(self, event.screenPos())


class NoteItem(_BoxItem):
    """A sticky note: coloured paper with wrapped text."""

    kind = NOTE

    def __init__(self, item_id: str, layer: DecorationLayer) -> None:
        super().__init__(item_id, layer)
        self.setZValue(NOTE_Z)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        theme = self.layer.scene.theme
        w, h = self.size
        fill = _mix(self.color, theme.canvas, 0.38) if theme.dark else QColor(self.color)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        border = QPen(QColor(theme.accent), 2.0) if self.isSelected() else \
            QPen(fill.darker(125 if not theme.dark else 85), 1.0)
        painter.setPen(border)
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(QRectF(0, 0, w, h), 6, 6)
        if self.inline is None:
            painter.setPen(QColor(theme.text) if self.text else QColor(theme.muted))
            painter.setFont(self.layer.font)
            painter.drawText(QRectF(10, 8, w - 20, h - 16),
                             Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignTop,
                             self.text or "Double-click to write a note")
        self._draw_grip(painter, QPen(QColor(theme.muted), 1.0))

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        self.layer.edit_in_place(self)


class GroupItem(_BoxItem):
    """A titled frame behind the graph; grabbed by its title bar or its rim."""

    kind = GROUP

    def __init__(self, item_id: str, layer: DecorationLayer) -> None:
        super().__init__(item_id, layer)
        self.setZValue(GROUP_Z)

    def shape(self) -> QPainterPath:
        w, h = self.size
        path = QPainterPath()
        path.addRect(QRectF(0, 0, w, TITLE_H))
        path.addRect(QRectF(0, 0, RIM, h))
        path.addRect(QRectF(w - RIM, 0, RIM, h))
        path.addRect(QRectF(0, h - RIM, w, RIM))
        path.addRect(self._grip())
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        theme = self.layer.scene.theme
        w, h = self.size
        base = QColor(self.color)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        body = QColor(base)
        body.setAlpha(34 if theme.dark else 28)
        title = QColor(base)
        title.setAlpha(90 if theme.dark else 70)
        pen = QPen(QColor(theme.accent), 2.0) if self.isSelected() else QPen(base, 1.2)
        painter.setPen(pen)
        painter.setBrush(body)
        painter.drawRoundedRect(QRectF(0, 0, w, h), 8, 8)
        bar = QPainterPath()
        bar.setFillRule(Qt.FillRule.WindingFill)  # the square lower half adds, not cuts
        bar.addRoundedRect(QRectF(0, 0, w, TITLE_H), 8, 8)
        bar.addRect(QRectF(0, TITLE_H / 2, w, TITLE_H / 2))
        painter.fillPath(bar.simplified(), title)
        if self.inline is None:
            painter.setPen(QColor(theme.text))
            painter.setFont(self.layer.title_font)
            label = painter.fontMetrics().elidedText(self.text or "Group",
                                                     Qt.TextElideMode.ElideRight, int(w - 24))
            painter.drawText(QRectF(12, 0, w - 24, TITLE_H), Qt.AlignmentFlag.AlignVCenter,
                             label)
        self._draw_grip(painter, QPen(base, 1.2))

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.pos().y() <= TITLE_H:
            self.layer.edit_in_place(self)


class DecorationLayer(QObject):
    """The notes and groups of one canvas scene."""

    def __init__(self, scene: CanvasScene) -> None:
        super().__init__(scene)
        self.scene = scene
        self.editor = scene.editor
        self.model = scene.model
        self.items: dict[Key, _BoxItem] = {}
        self._drag: dict | None = None
        self.font = QFont()
        self.font.setPixelSize(13)
        self.title_font = QFont()
        self.title_font.setPixelSize(13)
        self.title_font.setWeight(QFont.Weight.DemiBold)
        self.model.decorationAdded.connect(self._added)
        self.model.decorationRemoved.connect(self._removed)
        self.model.decorationChanged.connect(self._changed)

    # ---------------------------------------------------------------- following the model
    def rebuild(self) -> None:
        """Make every item again (the scene has just been cleared)."""
        self.items = {}
        self._drag = None
        for kind in (GROUP, NOTE):
            for item in self.model.decorations(kind):
                self._added(kind, item.id)

    def _added(self, kind: str, item_id: str) -> None:
        item = (NoteItem if kind == NOTE else GroupItem)(item_id, self)
        self.items[(kind, item_id)] = item
        self._changed(kind, item_id)
        self.scene.addItem(item)

    def _removed(self, kind: str, item_id: str) -> None:
        item = self.items.pop((kind, item_id), None)
        if item is not None:
            self.scene.removeItem(item)

    def _changed(self, kind: str, item_id: str) -> None:
        item = self.items.get((kind, item_id))
        data = self.model.decoration(kind, item_id)
        if item is not None and data is not None:
            item.set_content(data, data.text if kind == NOTE else data.label)

    def update_all(self) -> None:
        for item in self.items.values():
            item.update()

    # ---------------------------------------------------------------- selection
    def selected_keys(self) -> list[Key]:
        return [i.key for i in self.items.values() if i.isSelected()]

    def select(self, keys: list[Key]) -> None:
        for key in keys:
            if key in self.items:
                self.items[key].setSelected(True)

    # ---------------------------------------------------------------- moving together
    def drag_origins(self) -> tuple[dict[str, tuple[float, float]], dict[Key, tuple]]:
        """Where everything a drag of the selection moves starts: the selected nodes,
        notes and groups, and what lies inside each selected group."""
        nodes = set(self.scene.selected_node_ids())
        keys = set(self.selected_keys())
        for kind, item_id in list(keys):
            if kind == GROUP:
                inner_nodes, inner_notes = self.editor.members(item_id)
                nodes.update(inner_nodes)
                keys.update((NOTE, n) for n in inner_notes)
        return (self.editor.positions(sorted(nodes)),
                self.editor.decoration_positions(sorted(keys)))

    def begin_drag(self, item: _BoxItem, at: QPointF) -> None:
        nodes, decos = self.drag_origins()
        decos.setdefault(item.key, (item.pos().x(), item.pos().y()))
        self._drag = {"start": at, "nodes": nodes, "decos": decos, "anchor": item.key}

    def drag_to(self, at: QPointF, modifiers) -> None:
        from desktop.ui.editor import snap

        d = self._drag
        if d is None:
            return
        delta = at - d["start"]
        dx, dy = delta.x(), delta.y()
        if self.editor.snap_to_grid and not modifiers & Qt.KeyboardModifier.AltModifier:
            # whole grid steps: nodes framed by a group stay on the grid as it moves
            dx, dy = snap(dx), snap(dy)
        self.editor.move_items({n: (x + dx, y + dy) for n, (x, y) in d["nodes"].items()},
                               {k: (x + dx, y + dy) for k, (x, y) in d["decos"].items()})

    def end_drag(self) -> None:
        self._drag = None

    # ---------------------------------------------------------------- editing in place
    def edit_in_place(self, item: _BoxItem) -> None:
        """Type a note's text or a group's title on the canvas itself."""
        if item.inline is not None or not self.editor.editable():
            return
        w = item.size[0]
        group = item.kind == GROUP
        width = w - 24 if group else w - 20

        def done(text: str | None) -> None:
            inline, item.inline = item.inline, None
            if text is not None:
                if group:
                    self.editor.set_group_label(item.item_id, text)
                else:
                    self.editor.set_note_text(item.item_id, text.rstrip())
            if inline is not None:  # removed later: this runs inside its own event handler
                inline.hide()
                QTimer.singleShot(0, lambda: _discard(inline))
            item.update()

        inline = InlineText(item.text, width, done, item, one_line=group)
        inline.setFont(self.title_font if group else self.font)
        inline.setDefaultTextColor(QColor(self.scene.theme.text))
        inline.setPos(8, 2 if group else 4)
        item.inline = inline
        item.update()
        inline.setFocus(Qt.FocusReason.MouseFocusReason)
        cursor = inline.textCursor()
        cursor.select(cursor.SelectionType.Document)
        inline.setTextCursor(cursor)

    def context_menu(self, item: _BoxItem, at) -> None:
        menu = QMenu()
        menu.addAction("Edit Text" if item.kind == NOTE else "Rename Group",
                       lambda: self.edit_in_place(item))
        colors = menu.addMenu("Colour")
        for name, value in COLORS.items():
            colors.addAction(name, lambda v=value: self.editor.set_decoration_color(
                item.kind, item.item_id, v))
        colors.addAction("Default", lambda: self.editor.set_decoration_color(
            item.kind, item.item_id, None))
        menu.addSeparator()
        menu.addAction("Delete", lambda: self.editor.delete([], [], [item.key]))
        menu.exec(at)
