"""The filter bar of run history: by workflow, by status, and a search over what a row says.

The test of a row (:func:`row_matches`) knows nothing of the table, so any view of the
history (a flat table, a tree of forks) filters the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QWidget

from desktop.ui.clip import clipped
from desktop.wording import plural

LIVE = "live"
STATUSES = ("completed", "failed", "stopped", "running", "paused", "interrupted", "queued",
            "unreadable")


class Row(Protocol):
    """What the filter reads of a history row."""

    path: object
    workflow: str
    status: str
    started: str
    live: bool


@dataclass(frozen=True)
class HistoryQuery:
    """What the user asked for: None means any."""

    workflow: str | None = None
    status: str | None = None
    text: str = ""


def row_matches(row: Row, query: HistoryQuery) -> bool:
    """Whether ``row`` passes ``query``: its workflow, its status (``live``: an engine
    holds it now), and every word of the search in its workflow, status, run id or start
    time, ignoring case."""
    if query.workflow is not None and row.workflow != query.workflow:
        return False
    if query.status == LIVE:
        if not row.live:
            return False
    elif query.status is not None and row.status != query.status:
        return False
    words = query.text.lower().split()
    if not words:
        return True
    name = getattr(row.path, "name", str(row.path))
    haystack = " ".join((row.workflow, row.status, LIVE if row.live else "", name,
                         row.started.replace("T", " "))).lower()
    return all(word in haystack for word in words)


class HistoryFilterBar(QWidget):
    """Workflow and status pickers and a search field; ``changed`` on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workflow = QComboBox()
        self.workflow.setObjectName("historyWorkflow")
        self.workflow.addItem("All workflows", None)
        self.workflow.setMinimumContentsLength(14)
        self.workflow.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.status = QComboBox()
        self.status.setObjectName("historyStatus")
        self.status.addItem("Any status", None)
        self.status.addItem("Live now", LIVE)
        for status in STATUSES:
            self.status.addItem(status.capitalize(), status)
        self.search = QLineEdit()
        self.search.setObjectName("historySearch")
        self.search.setPlaceholderText("Search runs: workflow, status, run id, date")
        self.search.setClearButtonEnabled(True)
        self.count = QLabel()
        self.count.setProperty("role", "muted")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 6, 0)
        row.addWidget(self.workflow)
        row.addWidget(self.status)
        row.addWidget(self.search, 1)
        row.addWidget(self.count)
        self.workflow.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.status.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.search.textChanged.connect(lambda _t: self.changed.emit())

    def set_workflows(self, names: Iterable[str]) -> None:
        """Offer these workflow names (keeping the current pick when it is still there)."""
        names = sorted(set(names), key=str.lower)
        current = self.workflow.currentData()
        if [self.workflow.itemData(i) for i in range(1, self.workflow.count())] == names:
            return
        self.workflow.blockSignals(True)
        self.workflow.clear()
        self.workflow.addItem("All workflows", None)
        for name in names:  # the item's data is the whole name, which rows are matched by
            self.workflow.addItem(clipped(name), name)
        self.workflow.setCurrentIndex(max(0, self.workflow.findData(current)))
        self.workflow.blockSignals(False)
        if self.workflow.currentData() != current:
            self.changed.emit()

    def query(self) -> HistoryQuery:
        return HistoryQuery(self.workflow.currentData(), self.status.currentData(),
                            self.search.text())

    def show_count(self, shown: int, total: int) -> None:
        runs = plural(total, "run")
        self.count.setText(runs if shown == total else f"{shown:,} of {runs}")
