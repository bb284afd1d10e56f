"""The Record tab: the selected node's agent process runs, as their records say (when, how
they exited, the sandbox, the runner hash); double-click opens a run's folder. An empty
list says so (no run shown, or the node has had no turn yet) instead of looking broken."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.empty_state import over_view
from desktop.ui.run.node_picker import node_combo, pin_button
from desktop.views.records import RecordRow, node_records
from desktop.views.state import node_labels

COLUMNS = ("Agent run", "Node", "Started", "Ended", "Exit", "Sandbox", "Runner hash")
NO_RECORDS = "No agent run yet: each turn's agent process is recorded here once it starts."


def _time(stamp: str) -> str:
    return stamp[11:19] if len(stamp) >= 19 else stamp


class RecordView(QWidget):
    """Agent runs of one node (or every node), from their run-info.yaml and runner.json."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_dir: Path | None = None
        self.state: dict | None = None
        self.node: str | None = None
        self.rows: list[RecordRow] = []
        self._artifacts = -1  # artifacts in the state last read: records come with them
        self.node_combo = node_combo("recordNode", 14)
        self.node_combo.currentIndexChanged.connect(self._pick_node)
        self.pin = pin_button()
        self.note = QLabel("Double-click an agent run to open its folder.")
        self.note.setProperty("role", "muted")
        self.note.hide()  # a hint for rows: shown only while there are some to click
        bar = QHBoxLayout()
        bar.addWidget(self.node_combo)
        bar.addWidget(self.pin)
        bar.addStretch(1)
        bar.addWidget(self.note)
        self.table = QTreeWidget()
        self.table.setObjectName("recordTable")
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.itemActivated.connect(self._open)
        self.empty = over_view(self.table.viewport(), NO_RECORDS, "recordEmpty")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)

    def clear(self) -> None:
        """Forget the run (another one is shown)."""
        self.run_dir, self.state, self.rows, self._artifacts = None, None, [], -1
        self.table.clear()
        self.empty.show()
        self.note.hide()
        self.node_combo.blockSignals(True)
        self.node_combo.clear()
        self.node_combo.addItem("All nodes", None)
        self.node_combo.blockSignals(False)
        self.node = None

    def update_run(self, run_dir: Path, state: dict | None) -> None:
        """The run's state changed: read the records again once a new artifact is in."""
        self.run_dir, self.state = Path(run_dir), state
        known = {self.node_combo.itemData(i) for i in range(1, self.node_combo.count())}
        for node_id, label in node_labels(state).items():
            if node_id not in known:
                self.node_combo.addItem(label, node_id)
        count = len((state or {}).get("artifacts") or {})
        if count != self._artifacts:
            self._artifacts = count
            self.refresh()

    def follow_selection(self, node_id: str | None) -> None:
        """The canvas selected ``node_id`` (None: not one node): shown unless pinned."""
        if not self.pin.isChecked():
            self.set_node(node_id)

    def set_node(self, node_id: str | None) -> None:
        """Show one node's agent runs (None: every node's)."""
        self.node_combo.setCurrentIndex(max(0, self.node_combo.findData(node_id)))

    def _pick_node(self, _index: int) -> None:
        self.node = self.node_combo.currentData()
        self.refresh()

    def refresh(self) -> None:
        """Read the records of the node shown and list them."""
        self.rows = (node_records(self.run_dir, self.state, self.node)
                     if self.run_dir is not None else [])
        self.table.clear()
        for row in self.rows:
            exit_code = "running" if row.exit_code is None and not row.problem else \
                "" if row.exit_code is None else str(row.exit_code)
            item = QTreeWidgetItem([row.agent_run_id, row.node, _time(row.started),
                                    _time(row.ended), exit_code, row.sandbox,
                                    row.runner_hash or (row.problem or "missing")])
            item.setToolTip(6, row.problem or row.runner_hash or "")
            item.setData(0, Qt.ItemDataRole.UserRole, str(row.folder))
            self.table.addTopLevelItem(item)
        for column in range(len(COLUMNS) - 1):
            self.table.resizeColumnToContents(column)
        self.empty.setVisible(not self.rows)
        self.note.setVisible(bool(self.rows))

    def _open(self, item: QTreeWidgetItem) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(item.data(0, Qt.ItemDataRole.UserRole)))
