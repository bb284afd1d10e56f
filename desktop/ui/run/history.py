"""Run history: every run in the data folder, to open (attached when the service runs it,
else read-only), replay or run again."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.run.history_filter import HistoryFilterBar, row_matches

COLUMNS = ("Workflow", "Status", "Started", "Duration", "Tokens", "Cost", "Events")


@dataclass
class HistoryRow:
    """What the history table shows of one run."""

    path: Path
    workflow: str
    status: str
    started: str
    duration: float | None
    tokens: int
    cost: float | None
    events: int
    live: bool = False  # an engine (the service, or a terminal run) holds it now


def _seconds(a: str, b: str) -> float | None:
    try:
        start = datetime.fromisoformat(a.replace("Z", "+00:00"))
        end = datetime.fromisoformat(b.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return max(0.0, (end - start).total_seconds())


def load_history(data_dir: Path) -> list[HistoryRow]:
    """The runs under ``data_dir``, newest first, with token use and cost."""
    from desktop.store.runs import RunError, engine_alive
    from desktop.views.runs import list_runs, open_run

    rows = []
    for summary in list_runs(Path(data_dir)):
        usage: dict = {}
        if summary.error is None:
            try:
                usage = open_run(summary.path).usage or {}
            except RunError:
                usage = {}
        tokens = int(usage.get("inputTokens", 0) + usage.get("outputTokens", 0))
        rows.append(HistoryRow(
            path=summary.path, workflow=summary.workflow or summary.id[:8],
            status="unreadable" if summary.error else summary.display_status,
            started=summary.created_at, duration=_seconds(summary.created_at, summary.updated_at),
            tokens=tokens, cost=usage.get("costUsd"), events=summary.events,
            live=summary.error is None and engine_alive(summary.path)))
    return rows


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    minutes, sec = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{sec:02d}" if hours else f"{minutes}:{sec:02d}"


def _local(ts: str) -> str:
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone() \
            .strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return ts


class RunHistory(QWidget):
    """A table of past runs with Open, Replay and Run again."""

    openRequested = Signal(Path)
    replayRequested = Signal(Path)
    runAgainRequested = Signal(Path)

    def __init__(self, data_dir: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data_dir = data_dir
        self.rows: list[HistoryRow] = []
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.doubleClicked.connect(lambda _i: self._emit(self.openRequested))
        buttons = QHBoxLayout()
        for text, signal in (("&Open", self.openRequested), ("Re&play", self.replayRequested),
                             ("Run a&gain", self.runAgainRequested)):
            button = QPushButton(text)
            button.clicked.connect(lambda _c=False, s=signal: self._emit(s))
            buttons.addWidget(button)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        buttons.addStretch(1)
        buttons.addWidget(refresh)
        self.filter = HistoryFilterBar()
        self.filter.changed.connect(self.apply_filter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)

    def refresh(self) -> None:
        """Reload the run list from the data folder."""
        from desktop.store.paths import data_dir

        folder = self.data_dir or data_dir(None)
        self.rows = load_history(folder)
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            cost = f"${row.cost:.4f}" if isinstance(row.cost, int | float) else "—"
            status = f"{row.status} · live" if row.live else row.status
            values = (row.workflow, status, _local(row.started), _duration(row.duration),
                      f"{row.tokens:,}", cost, f"{row.events:,}")
            for c, value in enumerate(values):
                item = QTableWidgetItem(value)
                if c >= 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(str(row.path))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.filter.set_workflows(row.workflow for row in self.rows)
        self.apply_filter()

    def apply_filter(self) -> None:
        """Show only the runs the filter bar asks for."""
        query = self.filter.query()
        shown = 0
        for r, row in enumerate(self.rows):
            keep = row_matches(row, query)
            self.table.setRowHidden(r, not keep)
            shown += keep
        self.filter.show_count(shown, len(self.rows))
        current = self.table.currentRow()
        if 0 <= current < len(self.rows) and self.table.isRowHidden(current):
            self.table.clearSelection()
            self.table.setCurrentCell(-1, -1)

    def selected(self) -> HistoryRow | None:
        """The selected run, if any."""
        row = self.table.currentRow()
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def _emit(self, signal: Signal) -> None:
        row = self.selected()
        if row is not None:
            signal.emit(row.path)
