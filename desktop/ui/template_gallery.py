"""New from Template: a gallery of starters and examples, each with a picture of its graph."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.graph.templates import BLANK, EXAMPLE, STARTER, Template, list_templates
from desktop.ui.canvas.node_item import NODE_H, NODE_W
from desktop.ui.dialog_size import keep_readable
from desktop.ui.editor import fill_missing_positions
from desktop.ui.roles_cache import role_title
from desktop.ui.theme import LIGHT, Theme

THUMB = QSize(260, 120)
KIND_TITLES = {BLANK: "Blank", STARTER: "Starter", EXAMPLE: "Example"}
TemplateRole = Qt.ItemDataRole.UserRole + 1


def thumbnail(template: Template, theme: Theme) -> QPixmap:
    """A schematic of the template's graph fitted into THUMB: a card per node in its role's
    colour with a label that stays readable at this size, and its edges."""
    pixmap = QPixmap(THUMB)
    pixmap.fill(QColor(theme.canvas))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    doc = fill_missing_positions(template.new_document())
    if not doc.nodes:
        painter.setPen(QColor(theme.muted))
        font = painter.font()
        font.setPointSizeF(font.pointSizeF() * 2.2)
        painter.setFont(font)
        painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, "+")
        painter.end()
        return pixmap
    xs = [n.position.x for n in doc.nodes]
    ys = [n.position.y for n in doc.nodes]
    width = max(xs) - min(xs) + NODE_W
    height = max(ys) - min(ys) + NODE_H
    pad = 14.0
    scale = min((THUMB.width() - 2 * pad) / width, (THUMB.height() - 2 * pad) / height, 0.9)
    left = (THUMB.width() - width * scale) / 2 - min(xs) * scale
    top = (THUMB.height() - height * scale) / 2 - min(ys) * scale
    cards = {n.id: QRectF(left + n.position.x * scale, top + n.position.y * scale,
                          NODE_W * scale, NODE_H * scale) for n in doc.nodes}
    for edge in doc.edges:
        a, b = cards.get(edge.from_), cards.get(edge.to)
        if a is None or b is None:
            continue
        report = edge.type == "report"
        pen = QPen(QColor(theme.report if report else theme.handoff), 1.2)
        if report:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        start = QPointF(a.right(), a.center().y())
        end = QPointF(b.left(), b.center().y())
        painter.drawPath(_edge_path(start, end, a.height()))
    font = painter.font()
    font.setPixelSize(max(8, min(12, round(NODE_H * scale * 0.42))))
    painter.setFont(font)
    metrics = painter.fontMetrics()
    for node in doc.nodes:
        rect = cards[node.id]
        painter.setPen(QPen(QColor(theme.node_border), 1.0))
        painter.setBrush(QColor(theme.node))
        painter.drawRoundedRect(rect, 4, 4)
        stripe = QRectF(rect.left(), rect.top(), 4, rect.height())
        painter.fillRect(stripe, theme.role_color(node.role_template))
        painter.setPen(QColor(theme.text))
        text_rect = rect.adjusted(8, 0, -3, 0)
        label = metrics.elidedText(node.label or node.id, Qt.TextElideMode.ElideRight,
                                   int(text_rect.width()))
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter, label)
    painter.end()
    return pixmap


def _edge_path(start: QPointF, end: QPointF, card_height: float) -> QPainterPath:
    """A forward edge bends gently; one going back arcs under the cards."""
    path = QPainterPath(start)
    if end.x() >= start.x():
        dx = (end.x() - start.x()) / 2
        path.cubicTo(start + QPointF(dx, 0), end - QPointF(dx, 0), end)
    else:
        drop = QPointF(0, card_height * 1.6)
        path.cubicTo(start + QPointF(18, 0) + drop, end - QPointF(18, 0) + drop, end)
    return path


class TemplateGallery(QDialog):
    """Pick a template; ``chosen()`` is the one picked when ``exec()`` accepted."""

    def __init__(self, parent: QWidget | None = None, theme: Theme = LIGHT,
                 templates: list[Template] | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.setWindowTitle("New from Template")
        self.setObjectName("templateGallery")
        self.templates = list_templates() if templates is None else templates
        self.search = QLineEdit()
        self.search.setObjectName("templateSearch")
        self.search.setPlaceholderText("Filter by name, role or description")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.list = QListWidget()
        self.list.setObjectName("templateList")
        self.list.setViewMode(QListView.ViewMode.IconMode)
        self.list.setIconSize(THUMB)
        self.list.setGridSize(QSize(THUMB.width() + 24, THUMB.height() + 56))
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setMovement(QListView.Movement.Static)
        self.list.setWordWrap(True)
        self.list.setSpacing(6)
        self.list.setUniformItemSizes(True)
        for template in self.templates:
            picture = thumbnail(template, theme)
            icon = QIcon(picture)
            icon.addPixmap(picture, QIcon.Mode.Selected)  # no tint: the frame shows the pick
            item = QListWidgetItem(icon, f"{template.title}\n{self._kind_line(template)}")
            item.setData(TemplateRole, template.key)
            item.setToolTip(template.description)
            self.list.addItem(item)
        self.list.currentItemChanged.connect(lambda *_: self._show_current())
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        self.title = QLabel()
        self.title.setProperty("role", "title")
        self.title.setWordWrap(True)
        self.kind = QLabel()
        self.kind.setProperty("role", "muted")
        self.kind.setWordWrap(True)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.task = QLabel()
        self.task.setWordWrap(True)
        self.task.setProperty("role", "muted")
        side = QVBoxLayout()
        for widget in (self.title, self.kind, self.description, self.task):
            side.addWidget(widget)
        side.addStretch(1)
        side_box = QWidget()
        side_box.setLayout(side)
        side_box.setFixedWidth(280)
        body = QHBoxLayout()
        body.addWidget(self.list, 1)
        body.addWidget(side_box)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.create = self.buttons.addButton("Create", QDialogButtonBox.ButtonRole.AcceptRole)
        self.create.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addLayout(body, 1)
        layout.addWidget(self.buttons)
        rows = min(3, -(-len(self.templates) // 3))
        self.resize(3 * (THUMB.width() + 24) + 360, rows * (THUMB.height() + 56) + 110)
        self.list.setCurrentRow(0)
        self.list.setFocus()

    @staticmethod
    def _kind_line(template: Template) -> str:
        if template.kind == BLANK:
            return KIND_TITLES[BLANK]
        n = len(template.doc.nodes)
        return f"{KIND_TITLES[template.kind]} · {n} node{'s' if n != 1 else ''}"

    def _template(self, item: QListWidgetItem | None) -> Template | None:
        if item is None:
            return None
        key = item.data(TemplateRole)
        return next((t for t in self.templates if t.key == key), None)

    def chosen(self) -> Template | None:
        """The selected template (None when the filter hides every one)."""
        item = self.list.currentItem()
        return None if item is None or item.isHidden() else self._template(item)

    def _show_current(self) -> None:
        template = self.chosen()
        self.create.setEnabled(template is not None)
        if template is None:
            for label in (self.title, self.kind, self.description, self.task):
                label.clear()
            return
        self.title.setText(template.title)
        roles = ", ".join(role_title(r) for r in template.roles)
        self.kind.setText(self._kind_line(template) + (f" · {roles}" if roles else ""))
        self.description.setText(template.description)
        task = template.doc.task.strip()
        self.task.setText(f"Task: {task}" if task else "")

    def _filter(self, text: str) -> None:
        words = text.lower().split()
        first_visible = None
        for i in range(self.list.count()):
            item = self.list.item(i)
            template = self._template(item)
            haystack = " ".join([template.title, template.description, template.kind,
                                 *template.roles, *(role_title(r) for r in template.roles)])
            hidden = not all(w in haystack.lower() for w in words)
            item.setHidden(hidden)
            if not hidden and first_visible is None:
                first_visible = item
        current = self.list.currentItem()
        if current is None or current.isHidden():
            self.list.setCurrentItem(first_visible)
        self._show_current()

