"""Run history: every run in the data folder, to open (attached when the service runs it,
else read-only), replay, run again or compare. A run's forks are listed under it, as a
tree. A run whose nodes worked in git worktrees shows its result branch and whether, and
where, it was applied.

While a service runs, the table is the service's run list, kept current by a
:class:`~desktop.ui.run.run_list_feed.RunListFeed` (a new run, a status, a result
applied show within a poll, with no Refresh); *live* means the service holds the run
now, and a live run's duration counts up. With no service, it is read from the runs
folder when shown and on Refresh."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.contract.enums import RUN_LIVE
from desktop.ui.clip import clipped
from desktop.ui.run.history_filter import HistoryFilterBar, row_matches
from desktop.ui.run.run_list_feed import RunListFeed
from desktop.views.result import ResultSummary
from desktop.wording import plural

COLUMNS = ("Workflow", "Status", "Started", "Duration", "Tokens", "Cost", "Events", "Fork of",
           "Result")
NUMBERS = frozenset({"Duration", "Tokens", "Cost", "Events"})  # right-aligned
WORKFLOW_CHARS = 40
"""The Workflow column is at most about this many average characters wide: a longer name
is elided in its cell (its tooltip has it whole), and the other columns stay in view."""


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
    forked_from: tuple[str, int] | None = None  # the source run id and seq of a fork
    depth: int = 0  # how deep in the tree of forks (0: not a fork of a listed run)
    result: ResultSummary | None = None  # its result branch and where it was applied

    @property
    def run_id(self) -> str:
        return self.path.name


def _seconds(a: str, b: str) -> float | None:
    try:
        start = datetime.fromisoformat(a.replace("Z", "+00:00"))
        end = datetime.fromisoformat(b.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return max(0.0, (end - start).total_seconds())


def load_history(data_dir: Path) -> list[HistoryRow]:
    """The runs under ``data_dir`` (the one run list, desktop/views/run_list.py), newest
    first, each fork right under its source (deeper forks under theirs), with token use
    and cost; a run some engine holds is live (one that looks live while none holds it
    is listed as interrupted, or as paused but not live when it was left paused with
    nothing cut short: ``detached``)."""
    from desktop.views.run_list import list_rows

    listed = list_rows(Path(data_dir))
    detached = {str(run["id"]) for run in listed if run.get("detached")}
    rows = rows_from_service(listed, data_dir)
    for row in rows:
        row.live = row.status in RUN_LIVE and row.path.name not in detached
    return rows


def _as_tree(rows: list[HistoryRow]) -> list[HistoryRow]:
    """``rows`` with each fork right under its source (deeper forks under theirs)."""
    from desktop.views.forks import tree_order

    ordered = tree_order(rows, lambda r: r.run_id,
                         lambda r: r.forked_from[0] if r.forked_from else None)
    for row, depth in ordered:
        row.depth = depth
    return [row for row, _depth in ordered]


def rows_from_service(runs: list[dict[str, Any]], data_dir: Path) -> list[HistoryRow]:
    """History rows of the service's run list (``GET /api/runs``), in the same order and
    tree as :func:`load_history` gives from the folders."""
    from desktop.disk.paths import runs_dir

    root = runs_dir(Path(data_dir))
    rows = []
    for run in runs:
        usage = run.get("tokens") or {}
        fork = run.get("forkedFrom") or None
        result = run.get("result") or None
        rows.append(HistoryRow(
            path=root / str(run["id"]), workflow=run.get("workflowName") or str(run["id"])[:8],
            status=str(run.get("status")), started=str(run.get("createdAt") or ""),
            duration=_seconds(str(run.get("createdAt")), str(run.get("updatedAt"))),
            tokens=int(usage.get("inputTokens", 0) + usage.get("outputTokens", 0)),
            cost=usage.get("costUsd"), events=int(run.get("events") or 0),
            live=bool(run.get("live")),
            forked_from=(str(fork["runId"]), int(fork["seq"])) if fork else None,
            result=ResultSummary(result["nodeId"], result["node"], result["branch"],
                                 result["repo"], tuple(result.get("applied") or ()))
            if result else None))
    return _as_tree(rows)


def shown_duration(row: HistoryRow, now: datetime | None = None) -> float | None:
    """How long the run took, or, while a service holds it and it has not ended, how
    long it has been going (its last event may be a while ago: it waits on someone)."""
    if row.live and row.status in RUN_LIVE:
        return _seconds(row.started, (now or datetime.now(UTC)).isoformat())
    return row.duration


def tree_text(row: HistoryRow) -> str:
    """The workflow cell: a fork is drawn under its source, one step in per generation."""
    name = clipped(row.workflow)
    return name if row.depth == 0 else "    " * (row.depth - 1) + "└─ " + name


def fork_text(row: HistoryRow) -> str:
    """The "Fork of" cell: the source's short id and the seq it was forked at."""
    return f"{row.forked_from[0][:8]} @ {row.forked_from[1]:,}" if row.forked_from else ""


def result_text(row: HistoryRow) -> str:
    """The "Result" cell: ``canvas/1a2b3c4d/lead · applied: branch NAME``, ``… · not
    applied``, or "" for a run without a result branch."""
    if row.result is None:
        return ""
    where = row.result.applied_where()
    return f"{row.result.branch} · " + (where if where == "not applied" else f"applied: {where}")


def _duration(seconds: float | None) -> str:
    """``1:05``, ``2:00:07``; ``<1 s`` for a run shorter than a second ("0:00" read as
    no time, or as not measured)."""
    if seconds is None:
        return "—"
    if seconds < 1:
        return "<1 s"
    minutes, sec = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{sec:02d}" if hours else f"{minutes}:{sec:02d}"


def _local(ts: str) -> str:
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone() \
            .strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return ts


def live_refusal(rows: list[HistoryRow]) -> str:
    """Why ``rows`` cannot be deleted as they are ("" when they can): some are live."""
    live = [row for row in rows if row.live]
    if not live:
        return ""
    if len(live) == 1:
        return (f"“{live[0].workflow}” (run {live[0].run_id[:8]}) is live: stop it first "
                "(Open it, then Stop in the run toolbar), then delete it.")
    return (f"{plural(len(live), 'selected run')} are live: stop them first (Open each, "
            "then Stop in the run toolbar), then delete them.")


class RunHistory(QWidget):
    """A table of past runs (forks under their source) with Open, Replay, Run again,
    Compare and Delete."""

    openRequested = Signal(Path)
    replayRequested = Signal(Path)
    runAgainRequested = Signal(Path)
    compareRequested = Signal(Path, Path)  # left (the source, or the first picked), right
    deleteRequested = Signal(list)  # the HistoryRows to delete, none of them live

    def __init__(self, data_dir: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data_dir = data_dir
        self.rows: list[HistoryRow] = []
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.doubleClicked.connect(lambda index: self._open_row(index.row()))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.installEventFilter(self)  # the Delete key, where the table has focus
        self.menu: QMenu | None = None  # the context menu last shown
        buttons = QHBoxLayout()
        # Open, Replay and Run again act on one run: usable only while exactly one is selected
        self.run_buttons: list[QPushButton] = []
        for text, signal, tip in (
                ("&Open", self.openRequested, "Show the selected run with its graph"),
                ("Re&play", self.replayRequested, "Play the selected run's events again"),
                ("Run a&gain", self.runAgainRequested,
                 "Start a new run of the selected run's workflow and task")):
            button = QPushButton(text)
            button.setToolTip(f"{tip} (select one run)")
            button.setEnabled(False)
            button.clicked.connect(lambda _c=False, s=signal: self._emit(s))
            buttons.addWidget(button)
            self.run_buttons.append(button)
        self.compare_button = QPushButton("&Compare")
        self.compare_button.setToolTip("Compare a fork with its source, or two selected runs, "
                                       "side by side")
        self.compare_button.clicked.connect(self.compare)
        self.compare_button.setEnabled(False)
        buttons.addWidget(self.compare_button)
        self.delete_button = QPushButton("&Delete…")
        self.delete_button.setEnabled(False)
        self.delete_button.clicked.connect(self.ask_delete)
        buttons.addWidget(self.delete_button)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        buttons.addStretch(1)
        buttons.addWidget(refresh)
        self.filter = HistoryFilterBar()
        self.filter.changed.connect(self.apply_filter)
        self.feed: RunListFeed | None = None
        self._ticker = QTimer(self)  # a live run's duration counts up while shown
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick_durations)
        self._ticker.start()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        # what deleting did, or why it did not: said here, where it was asked for
        self.note = QLabel()
        self.note.setObjectName("historyNote")
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note.hide()
        self._refilling = False
        self._note_about: set[str] | None = None
        """The selection a refusal in the note is about: it goes when the selection does."""
        layout.addWidget(self.note)
        layout.addLayout(buttons)

    def folder(self) -> Path:
        """The data folder whose runs are listed."""
        from desktop.disk.paths import data_dir

        return Path(self.data_dir or data_dir(None))

    def follow(self, feed: RunListFeed) -> None:
        """Show the service's run list as ``feed`` takes it, from now on."""
        self.feed = feed
        feed.changed.connect(self._from_service)

    def refresh(self) -> None:
        """Reload the run list: from the service when one runs (the feed asks it at once,
        without blocking the window), else from the data folder now."""
        if self.feed is not None:
            self.feed.etag = None  # the next answer replaces the rows shown, even if unchanged
            if self.feed.can_ask():
                self.feed.refresh()
                return
        self.show_rows(load_history(self.folder()))

    def _from_service(self, runs: list[dict[str, Any]] | None) -> None:
        if runs is None:  # the service went away: the folders are the truth again
            self.show_rows(load_history(self.folder()))
        else:
            self.show_rows(rows_from_service(runs, self.folder()))

    def show_rows(self, rows: list[HistoryRow]) -> None:
        """Fill the table with ``rows``; the selected runs stay selected."""
        kept = {row.run_id for row in self.picked()}
        current_row = self.table.currentRow()
        current = self.rows[current_row] if 0 <= current_row < len(self.rows) else None
        self.rows = rows
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            cost = f"${row.cost:.4f}" if isinstance(row.cost, int | float) else "—"
            status = f"{row.status} · live" if row.live else row.status
            values = (tree_text(row), status, _local(row.started),
                      _duration(shown_duration(row)),
                      f"{row.tokens:,}", cost, f"{row.events:,}", fork_text(row),
                      result_text(row))
            tip = str(row.path)
            if row.forked_from:
                tip += (f"\nforked from run {row.forked_from[0]} at seq {row.forked_from[1]:,}"
                        " (the events before it are that run's, copied)")
            if row.result is not None:
                tip += (f"\nresult: branch {row.result.branch} (node {row.result.node}), "
                        f"{row.result.applied_text()}")
            for c, value in enumerate(values):
                item = QTableWidgetItem(value)
                if COLUMNS[c] in NUMBERS:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(f"{clipped(row.workflow)}\n{tip}" if c == 0 else tip)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        widest = self.table.fontMetrics().averageCharWidth() * WORKFLOW_CHARS
        if self.table.columnWidth(0) > widest:  # the cells elide what is left out
            self.table.setColumnWidth(0, widest)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)  # fitting sized the last column to its text too:
        header.setStretchLastSection(True)  # it fills the rest of the table again
        self.filter.set_workflows(row.workflow for row in self.rows)
        self._refilling = True  # the same runs are selected again: not a new selection
        try:
            self._reselect(kept, current.run_id if current else None)
        finally:
            self._refilling = False
        self.apply_filter()

    def _reselect(self, run_ids: set[str], current: str | None) -> None:
        model = self.table.selectionModel()
        model.clearSelection()
        rows = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for r, row in enumerate(self.rows):
            if row.run_id == current:
                self.table.setCurrentCell(r, 0, QItemSelectionModel.SelectionFlag.NoUpdate)
            if row.run_id in run_ids:
                model.select(self.table.model().index(r, 0), rows)

    def _tick_durations(self) -> None:
        if not self.isVisible():
            return
        column = COLUMNS.index("Duration")
        for r, row in enumerate(self.rows):
            if row.live and row.status in RUN_LIVE and (item := self.table.item(r, column)):
                item.setText(_duration(shown_duration(row)))

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
        self._selection_changed()  # a selected row the filter hid is no longer chosen

    def selected(self) -> HistoryRow | None:
        """The run Open, Replay and Run again act on: the one selected row the filter
        shows (None when no row is selected, or several are)."""
        shown = [r for r in self._selected_rows() if not self.table.isRowHidden(r)]
        return self.rows[shown[0]] if len(shown) == 1 else None

    def _selected_rows(self) -> list[int]:
        return sorted({index.row() for index in self.table.selectionModel().selectedRows()
                       if 0 <= index.row() < len(self.rows)})

    def picked(self) -> list[HistoryRow]:
        """The selected runs, in table order."""
        return [self.rows[r] for r in self._selected_rows()]

    def compare_pair(self) -> tuple[HistoryRow, HistoryRow] | None:
        """What Compare would show: two selected runs, or a selected fork and its source."""
        picked = self.picked()
        if len(picked) == 2:
            first, second = picked
            # the source on the left when one is the other's fork
            if second.forked_from is None and first.forked_from \
                    and first.forked_from[0] == second.run_id:
                first, second = second, first
            return first, second
        if len(picked) == 1 and picked[0].forked_from:
            source = next((r for r in self.rows if r.run_id == picked[0].forked_from[0]), None)
            if source is not None:
                return source, picked[0]
        return None

    def compare(self) -> None:
        """Ask to compare the pair the selection names (see :meth:`compare_pair`)."""
        pair = self.compare_pair()
        if pair is not None:
            self.compareRequested.emit(pair[0].path, pair[1].path)

    def shown_picked(self) -> list[HistoryRow]:
        """The selected runs the filter shows, in table order (what Delete acts on)."""
        return [self.rows[r] for r in self._selected_rows() if not self.table.isRowHidden(r)]

    def ask_delete(self) -> None:
        """Ask to delete the selected shown runs; a live one among them is refused here,
        with what to do instead."""
        rows = self.shown_picked()
        if not rows:
            return
        if refusal := live_refusal(rows):
            self.show_note(refusal, error=True)
            self._note_about = {row.run_id for row in rows}
            return
        self.deleteRequested.emit(rows)

    def show_note(self, text: str, *, error: bool = False) -> None:
        """Say ``text`` under the table ("" hides it): what deleting did, or why not."""
        self.note.setProperty("role", "error" if error else "")
        self.note.style().unpolish(self.note)  # the role's colour follows the new value
        self.note.style().polish(self.note)
        self.note.setText(text)
        self.note.setVisible(bool(text))
        self._note_about = None

    def _selection_changed(self) -> None:
        pair = self.compare_pair()
        self.compare_button.setEnabled(pair is not None)
        one = self.selected() is not None
        for button in self.run_buttons:
            button.setEnabled(one)
        rows = self.shown_picked()
        if not self._refilling and self._note_about is not None \
                and self._note_about != {r.run_id for r in rows}:
            self.show_note("")
        refusal = live_refusal(rows)
        self.delete_button.setEnabled(bool(rows) and not refusal)
        self.delete_button.setToolTip(
            refusal or (f"Delete {plural(len(rows), 'selected run')}: their folders, "
                        "worktrees and canvas/… branches (asks first)" if rows
                        else "Delete the selected finished runs (select one or more)"))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.table and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Delete
                and event.modifiers() == Qt.KeyboardModifier.NoModifier):
            self.ask_delete()
            return True
        return super().eventFilter(watched, event)

    def _context_menu(self, at: QPoint) -> None:
        """Open, Replay, Run again, Compare and Delete of the row under the pointer (it is
        selected first unless it already is)."""
        r = self.table.rowAt(at.y())
        if r < 0:
            return
        if r not in self._selected_rows():
            self.table.selectRow(r)
        self.menu = menu = QMenu(self)
        for button in (*self.run_buttons, self.compare_button):
            action = menu.addAction(button.text(), button.click)
            action.setEnabled(button.isEnabled())
        menu.addSeparator()
        rows = self.shown_picked()
        refusal = live_refusal(rows)
        label = "&Delete…" if len(rows) == 1 else f"&Delete {plural(len(rows), 'run')}…"
        delete = menu.addAction(label + ("  (stop it first)" if refusal else ""),
                                self.ask_delete)
        delete.setShortcut(Qt.Key.Key_Delete)
        delete.setEnabled(not refusal)
        delete.setToolTip(refusal)
        menu.setToolTipsVisible(True)
        menu.popup(self.table.viewport().mapToGlobal(at))

    def _emit(self, signal: Signal) -> None:
        row = self.selected()
        if row is not None:
            signal.emit(row.path)

    def _open_row(self, r: int) -> None:
        """A double-clicked row opens, whatever else is selected with it."""
        if 0 <= r < len(self.rows) and not self.table.isRowHidden(r):
            self.openRequested.emit(self.rows[r].path)
