"""The palette: role templates, providers, notes, groups and subflows to drag onto the
canvas."""

from __future__ import annotations

import json

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from desktop.contract.enums import Provider
from desktop.ui.canvas.decorations import GROUP_DEFAULT, NOTE_DEFAULT
from desktop.ui.canvas.scene import TEMPLATE_MIME
from desktop.ui.roles_cache import roles
from desktop.ui.theme import Theme

SPEC_ROLE = Qt.ItemDataRole.UserRole + 1


def entries() -> list[dict]:
    """Everything the palette offers: {kind, name, title, detail}."""
    out = [{"kind": "role", "name": r.name, "title": r.title, "detail": r.description}
           for r in roles().values()]
    out += [{"kind": "provider", "name": p.value, "title": p.value,
             "detail": "drop on a node to run it with this provider"} for p in Provider]
    out += [{"kind": "note", "name": "note", "title": "Sticky note",
             "detail": "a note on the canvas; double-click it to write"},
            {"kind": "group", "name": "group", "title": "Group",
             "detail": "a titled frame; what lies inside moves with it"},
            {"kind": "subflow", "name": "subflow", "title": "Subflow\u2026",
             "detail": "another workflow file (*.flow.yaml) run as one step"}]
    return out


def swatch(color: QColor, size: int = 14) -> QIcon:
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color)
    p.drawRoundedRect(1, 1, size - 2, size - 2, 4, 4)
    p.end()
    return QIcon(pix)


class _Tree(QTreeWidget):
    def mimeData(self, items: list[QTreeWidgetItem]) -> QMimeData:
        data = QMimeData()
        spec = items[0].data(0, SPEC_ROLE) if items else None
        if spec:
            data.setData(TEMPLATE_MIME, json.dumps(spec).encode())
            data.setText(spec["name"])
        return data


class Palette(QWidget):
    """Searchable list of roles and providers; drag one out, or double-click to add it."""

    activated = Signal(dict)

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.search = QLineEdit(placeholderText="Filter roles and providers")
        self.search.setClearButtonEnabled(True)
        self.tree = _Tree()
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setDragEnabled(True)
        self.tree.setIndentation(8)
        self.tree.setDragDropMode(QTreeWidget.DragDropMode.DragOnly)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.search)
        layout.addWidget(self.tree)
        self.search.textChanged.connect(self._filter)
        self.tree.itemActivated.connect(self._activate)
        self.populate(theme)

    def populate(self, theme: Theme) -> None:
        self.tree.clear()
        canvas = QTreeWidgetItem(["CANVAS"])
        groups = {"role": QTreeWidgetItem(["ROLES"]), "provider": QTreeWidgetItem(["PROVIDERS"]),
                  "note": canvas, "group": canvas, "subflow": canvas}
        for group in dict.fromkeys(groups.values()):
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = group.font(0)
            font.setPointSizeF(font.pointSizeF() * 0.85)
            font.setBold(True)
            group.setFont(0, font)
            group.setForeground(0, QColor(theme.muted))
            self.tree.addTopLevelItem(group)
        for spec in entries():
            item = QTreeWidgetItem([spec["title"]])
            item.setData(0, SPEC_ROLE, spec)
            item.setToolTip(0, spec["detail"])
            color = (theme.role_color(spec["name"]) if spec["kind"] == "role"
                     else QColor(NOTE_DEFAULT) if spec["kind"] == "note"
                     else QColor(GROUP_DEFAULT) if spec["kind"] == "group"
                     else QColor(theme.muted) if spec["kind"] == "subflow"
                     else theme.provider_color(spec["name"]))
            item.setIcon(0, swatch(color))
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                          | Qt.ItemFlag.ItemIsDragEnabled)
            groups[spec["kind"]].addChild(item)
        self.tree.expandAll()
        self._filter(self.search.text())

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            for i in range(group.childCount()):
                item = group.child(i)
                spec = item.data(0, SPEC_ROLE)
                hay = f"{spec['title']} {spec['name']} {spec['detail']}".lower()
                item.setHidden(bool(needle) and needle not in hay)

    def _activate(self, item: QTreeWidgetItem) -> None:
        spec = item.data(0, SPEC_ROLE)
        if spec:
            self.activated.emit(spec)
