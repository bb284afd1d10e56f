"""The transcript as a Qt item model: an adapter over :class:`~desktop.views.transcript.
TranscriptRows`, which holds the rows, the streams, the tool calls and the filters.

The model maps the rows' change notices onto Qt's begin/end calls and drives indexing and
full-text search from timers, a slice per tick, so the window stays responsive.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, Qt, QTimer, Signal

from desktop.views.events import FileEvents, MemoryEvents
from desktop.views.format import category
from desktop.views.transcript import RowSink, TranscriptRows

SeqRole = Qt.ItemDataRole.UserRole + 1
TypeRole = SeqRole + 1
NodeRole = SeqRole + 2
EventRole = SeqRole + 3
CategoryRole = SeqRole + 4
MarkdownRole = SeqRole + 5
TsRole = SeqRole + 6
ExpandedRole = SeqRole + 7

_EMPTY = QModelIndex()


class _QtSink(RowSink):
    """The rows' change notices as Qt model calls."""

    def __init__(self, model: TranscriptModel) -> None:
        self.model = model

    def begin_insert(self, first: int, last: int) -> None:
        self.model.beginInsertRows(_EMPTY, first, last)

    def end_insert(self) -> None:
        self.model.endInsertRows()

    def begin_remove(self, first: int, last: int) -> None:
        self.model.beginRemoveRows(_EMPTY, first, last)

    def end_remove(self) -> None:
        self.model.endRemoveRows()

    def rows_changed(self, first: int, last: int) -> None:
        self.model.dataChanged.emit(self.model.index(first), self.model.index(last))

    def begin_reset(self) -> None:
        self.model.beginResetModel()

    def end_reset(self) -> None:
        self.model.endResetModel()


class TranscriptModel(QAbstractListModel):
    """Rows of a run's transcript; feed live batches with :meth:`ingest`."""

    indexingChanged = Signal(bool)
    searchFinished = Signal(int)  # how many events matched
    searchingChanged = Signal(bool)  # a search runs in slices between frames

    def __init__(self, store: MemoryEvents | FileEvents | None = None,
                 parent: QObject | None = None, *, rows: TranscriptRows | None = None
                 ) -> None:
        super().__init__(parent)
        self.rows = rows if rows is not None else TranscriptRows(store)
        self.rows.sink = _QtSink(self)
        self.search_slice_seconds = 0.010  # per timer tick: the frame stays responsive
        self._search_timer = QTimer(self)
        self._search_timer.setInterval(0)
        self._search_timer.timeout.connect(self._search_slice)
        self._index_timer = QTimer(self)
        self._index_timer.setInterval(0)
        self._index_timer.timeout.connect(self._index_slice)
        # a row read lazily may teach a call's outcome to a row read earlier: repaint it
        # after this paint, never from inside data()
        self._changes_timer = QTimer(self)
        self._changes_timer.setSingleShot(True)
        self._changes_timer.setInterval(0)
        self._changes_timer.timeout.connect(self.rows.flush_changes)
        if self.rows.indexing:
            self._index_timer.start()
            self.indexingChanged.emit(True)

    @classmethod
    def open_file(cls, path: Path, parent: QObject | None = None) -> TranscriptModel:
        """A model over an existing log, on screen before it is indexed."""
        return cls(parent=parent, rows=TranscriptRows.open_file(Path(path)))

    @classmethod
    def over_file(cls, store: FileEvents, parent: QObject | None = None) -> TranscriptModel:
        """A model over a log already open (and perhaps indexed: then no slices are left)."""
        return cls(parent=parent, rows=TranscriptRows.over_file(store))

    # --- what the views read ------------------------------------------------------------------

    @property
    def store(self) -> MemoryEvents | FileEvents:
        """Where the events live."""
        return self.rows.store

    @property
    def node_labels(self) -> dict[str, str]:
        """Node id -> label."""
        return self.rows.node_labels

    @property
    def tools(self) -> dict[str, dict[str, Any]]:
        """Tool id -> its record (name, status, result, latency)."""
        return self.rows.tools

    @property
    def expanded(self) -> set[int]:
        """Positions of the thinking rows opened in place."""
        return self.rows.expanded

    @property
    def indexing(self) -> bool:
        """True while a file store is still being indexed (filters wait for it)."""
        return self.rows.indexing

    @property
    def searching(self) -> bool:
        """True while a search is still going through the events."""
        return self.rows.searching

    def position(self, row: int) -> int:
        """The store position shown at ``row``."""
        return self.rows.position(row)

    def event_at(self, row: int) -> dict | None:
        """The event behind ``row`` (read lazily for file stores)."""
        return self.rows.event_at(row)

    def row_of(self, pos: int) -> int | None:
        """The row showing store position ``pos`` (None when filtered out)."""
        return self.rows.row_of(pos)

    # --- Qt model API -----------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex = _EMPTY) -> int:
        return 0 if parent.isValid() else self.rows.count

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = index.row()
        rows = self.rows
        if role == SeqRole:
            return rows.seq(row)
        if role == Qt.ItemDataRole.DisplayRole:
            text = rows.display(row)
            if rows.has_changes and not self._changes_timer.isActive():
                self._changes_timer.start()
            return "…" if text is None else text
        if role == MarkdownRole:
            return rows.markdown(row)
        event = rows.event_at(row)
        if event is None:
            return None
        if role == ExpandedRole:
            return rows.position(row) in rows.expanded
        if role == TypeRole:
            return event.get("type", "")
        if role == NodeRole:
            return event.get("nodeId")
        if role == CategoryRole:
            return category(event.get("type", ""))
        if role == EventRole:
            return event
        if role == TsRole:
            return event.get("ts", "")
        if role == Qt.ItemDataRole.ToolTipRole:
            return event.get("type", "")
        return None

    # --- thinking rows ----------------------------------------------------------------------

    def can_expand(self, row: int) -> bool:
        """True when ``row`` (a thinking row) can open in place."""
        return self.rows.can_expand(row)

    def set_expanded(self, row: int, expanded: bool) -> bool:
        """Open or close a thinking row in place; False when the row cannot open."""
        return self.rows.set_expanded(row, expanded)

    def toggle_expanded(self, row: int) -> bool:
        """Flip a thinking row between one line and its whole text."""
        return self.rows.toggle_expanded(row)

    # --- live feed, filters, replay ---------------------------------------------------------

    def ingest(self, events: list[dict]) -> None:
        """Add a batch of live events; one row insertion per batch."""
        self.rows.ingest(events)

    def set_filter(self, node_id: str | None = None, types: set[str] | None = None,
                   search: str = "") -> None:
        """Show one node (None: all), these event types (None: default set), matching text."""
        was = self.rows.searching
        started = self.rows.set_filter(node_id, types, search, self.search_slice_seconds)
        if self.rows.searching:
            self._search_timer.start()
            if not was:
                self.searchingChanged.emit(True)
            return
        self._search_timer.stop()
        if was:
            self.searchingChanged.emit(False)
        if started:
            self.searchFinished.emit(self.rows.match_count)

    def set_limit(self, count: int | None) -> None:
        """Replay: show only the first ``count`` events (None: all of them)."""
        self.rows.set_limit(count)

    def finish_search(self) -> None:
        """Run the current search to its end now."""
        while self.searching:
            self._search_slice()

    def _search_slice(self) -> None:
        if not self.rows.searching:
            self._search_timer.stop()
            return
        if self.rows.search_slice(self.search_slice_seconds):
            self._search_timer.stop()
            self.searchingChanged.emit(False)
            self.searchFinished.emit(self.rows.match_count)

    def _index_slice(self) -> None:
        if not self.rows.index_slice(1 << 20):
            return
        self._index_timer.stop()
        self.indexingChanged.emit(False)

    def close(self) -> None:
        """Stop indexing and searching and release the store."""
        self._changes_timer.stop()
        self._index_timer.stop()
        self._search_timer.stop()
        self.rows.close()
