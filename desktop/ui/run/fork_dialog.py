"""Fork from here…: say where the fork continues, and change nodes or a queued handoff.

The dialog shows the run as it is at the fork point (the state the scrubber folded),
keeps each node's edits while another node is picked, and hands back only what changed:
``nodes`` as the API takes them (``[{"node", "instructions"?, "model"?, "provider"?}]``)
and ``items`` (``[{"itemId", "text"}]``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop.contract.enums import Provider
from desktop.ui.dialog_size import keep_readable
from desktop.ui.theme import ROOMY_ROWS
from desktop.views.forks import Snap

ID_ROLE = Qt.ItemDataRole.UserRole + 1
CHANGED = " · changed"


def _head(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


class ForkDialog(QDialog):
    """Where the fork continues and what it changes; ``accepted`` when the user forks."""

    def __init__(self, state: dict[str, Any], snap: Snap, workflow: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.setWindowTitle("Fork from here")
        self.setObjectName("forkDialog")
        self.snap = snap
        self.state = state
        nodes = state.get("nodes") or {}
        configs = state.get("nodeConfigs") or {}
        self.original: dict[str, dict[str, str]] = {
            nid: {"instructions": str((configs.get(nid) or {}).get("instructions") or ""),
                  "model": str((configs.get(nid) or {}).get("model") or ""),
                  "provider": str(node.get("provider") or "scripted")}
            for nid, node in nodes.items()}
        self.values = {nid: dict(v) for nid, v in self.original.items()}
        self.labels = {nid: str(n.get("label") or n.get("key") or nid[:8])
                       for nid, n in nodes.items()}
        self.queued = [(nid, item) for nid, items in (state.get("inboxes") or {}).items()
                       for item in items]
        self.texts = {item["id"]: str(item.get("text") or "") for _nid, item in self.queued}
        self._node: str | None = None
        self._item: str | None = None
        self._build(workflow)
        if self.node_list.count():
            self.node_list.setCurrentRow(self._first_node_row())
        if self.item_list.count():
            self.item_list.setCurrentRow(0)

    # --- layout --------------------------------------------------------------------------

    def _build(self, workflow: str) -> None:
        title = QLabel(f"Fork “{workflow or 'run'}” at seq {self.snap.point.seq:,}")
        title.setProperty("role", "title")
        where = QLabel(
            f"{self.snap.note[:1].upper()}{self.snap.note[1:]}.\nEvents 1 to "
            f"{self.snap.point.seq:,} are copied into the new run: nothing before it runs "
            "again and no tokens are spent on it. Its workspace is rebuilt from the diffs "
            "recorded up to there.")
        where.setObjectName("forkPoint")
        where.setWordWrap(True)
        where.setProperty("role", "muted")

        self.node_list = QListWidget()
        self.node_list.setObjectName("forkNodes")
        self.node_list.setStyleSheet(ROOMY_ROWS)
        for nid, label in self.labels.items():
            item = QListWidgetItem(label)
            item.setData(ID_ROLE, nid)
            self.node_list.addItem(item)
        self.node_list.currentItemChanged.connect(self._pick_node)
        self.provider = QComboBox()
        self.provider.addItems([p.value for p in Provider])
        self.model = QLineEdit()
        self.model.setPlaceholderText("the provider's default model")
        self.instructions = QPlainTextEdit()
        self.instructions.setObjectName("forkInstructions")
        self.instructions.setPlaceholderText("the node's instructions")
        form = QFormLayout()
        form.addRow("Provider", self.provider)
        form.addRow("Model", self.model)
        form.addRow("Instructions", self.instructions)
        for signal in (self.provider.currentTextChanged, self.model.textChanged,
                       self.instructions.textChanged):
            signal.connect(self._node_edited)
        node_box = QGroupBox("Nodes")
        row = QHBoxLayout(node_box)
        row.addWidget(self.node_list, 1)
        row.addLayout(form, 3)

        self.item_list = QListWidget()
        self.item_list.setObjectName("forkQueued")
        self.item_list.setStyleSheet(ROOMY_ROWS)
        for nid, item in self.queued:
            entry = QListWidgetItem(f"{item.get('kind', 'item')} for {self.labels.get(nid, '?')}:"
                                    f" {_head(str(item.get('text') or ''))}")
            entry.setData(ID_ROLE, item["id"])
            entry.setToolTip(str(item.get("text") or ""))
            self.item_list.addItem(entry)
        self.item_list.currentItemChanged.connect(self._pick_item)
        self.item_text = QPlainTextEdit()
        self.item_text.setObjectName("forkItemText")
        self.item_text.textChanged.connect(self._item_edited)
        queue_box = QGroupBox("Queued at this point (the next turns take them)")
        column = QVBoxLayout(queue_box)
        if self.queued:
            column.addWidget(self.item_list, 1)
            column.addWidget(self.item_text, 2)
        else:
            column.addWidget(QLabel("Nothing is queued here."))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.fork_button = buttons.addButton("Fork and run",
                                             QDialogButtonBox.ButtonRole.AcceptRole)
        self.fork_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(where)
        layout.addWidget(node_box, 3)
        layout.addWidget(queue_box, 2)
        layout.addWidget(buttons)
        self.resize(760, 620)

    def _first_node_row(self) -> int:
        """The node whose turn comes next, else the first."""
        ids = [self.node_list.item(i).data(ID_ROLE) for i in range(self.node_list.count())]
        nxt = self.snap.point.node_id
        return ids.index(nxt) if nxt in ids else 0

    # --- editing ---------------------------------------------------------------------------

    def _pick_node(self, current: QListWidgetItem | None, _previous: object) -> None:
        self._node = None  # no edit is recorded while the fields are filled
        if current is None:
            return
        nid = current.data(ID_ROLE)
        values = self.values[nid]
        self.provider.setCurrentText(values["provider"])
        self.model.setText(values["model"])
        self.instructions.setPlainText(values["instructions"])
        self._node = nid

    def _node_edited(self) -> None:
        nid = self._node
        if nid is None:
            return
        self.values[nid] = {"instructions": self.instructions.toPlainText(),
                            "model": self.model.text().strip(),
                            "provider": self.provider.currentText()}
        changed = self.values[nid] != self.original[nid]
        item = self.node_list.currentItem()
        if item is not None:
            item.setText(self.labels[nid] + (CHANGED if changed else ""))

    def _pick_item(self, current: QListWidgetItem | None, _previous: object) -> None:
        self._item = None
        if current is None:
            return
        item_id = current.data(ID_ROLE)
        self.item_text.setPlainText(self.texts[item_id])
        self._item = item_id

    def _item_edited(self) -> None:
        if self._item is not None:
            self.texts[self._item] = self.item_text.toPlainText()

    # --- the answer --------------------------------------------------------------------------

    def node_edits(self) -> list[dict[str, str]]:
        """What changed per node, as ``POST /api/runs/{id}/fork`` takes it."""
        out = []
        for nid, values in self.values.items():
            edit = {field: value for field, value in values.items()
                    if value != self.original[nid][field]}
            if edit:
                out.append({"node": nid, **edit})
        return out

    def item_edits(self) -> list[dict[str, str]]:
        """The queued items whose text changed."""
        return [{"itemId": item["id"], "text": self.texts[item["id"]]}
                for _nid, item in self.queued
                if self.texts[item["id"]] != str(item.get("text") or "")]
