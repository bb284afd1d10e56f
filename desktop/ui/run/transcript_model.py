"""The transcript as a Qt item model over compact rows (positions into an event store).

A row is an int: the position of an event. With no filter the model maps row to
position directly, so a million-event log opens with one read of its tail. Filters
(node, event types, full text) produce a sorted array of positions. Streaming
deltas are shown as one live row per node and message, whose text grows until the
final message replaces it; delta rows are otherwise hidden by default.
"""

from __future__ import annotations

import bisect
from array import array
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, Qt, QTimer, Signal

from desktop.ui.run.event_store import FileEvents, MemoryEvents
from desktop.ui.run.transcript_format import (
    HIDDEN_BY_DEFAULT,
    category,
    expandable,
    expanded_text,
    full_markdown,
    preview,
)
from desktop.ui.run.transcript_search import TextSearch, event_matches

SeqRole = Qt.ItemDataRole.UserRole + 1
TypeRole = SeqRole + 1
NodeRole = SeqRole + 2
EventRole = SeqRole + 3
CategoryRole = SeqRole + 4
MarkdownRole = SeqRole + 5
TsRole = SeqRole + 6
ExpandedRole = SeqRole + 7

_STREAM_OF = {"message.assistant.delta": "msg", "message.assistant.thinking.delta": "think"}
_FINAL_OF = {"message.assistant.final": "msg", "message.assistant.thinking.final": "think"}
_EMPTY = QModelIndex()
_STREAM_CAP = 20000


class TranscriptModel(QAbstractListModel):
    """Rows of a run's transcript; feed live batches with :meth:`ingest`."""

    indexingChanged = Signal(bool)
    searchFinished = Signal(int)  # how many events matched
    searchingChanged = Signal(bool)  # a search runs in slices between frames

    def __init__(self, store: MemoryEvents | FileEvents | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store if store is not None else MemoryEvents()
        self.node_labels: dict[str, str] = {}
        self.tools: dict[str, dict[str, Any]] = {}
        self._streams: dict[tuple[str, str], list] = {}  # (node, kind) -> [pos, text]
        self._stream_text: dict[int, str] = {}
        self._node: str | None = None
        self._types: set[str] | None = None  # None: everything but HIDDEN_BY_DEFAULT
        self._search: str = ""
        self._matches: set[int] | None = None
        self._job: TextSearch | None = None
        self.search_slice_seconds = 0.010  # per timer tick: the frame stays responsive
        self._search_timer = QTimer(self)
        self._search_timer.setInterval(0)
        self._search_timer.timeout.connect(self._search_slice)
        self._rows: array | None = None  # None: identity while the index is built
        self._limit: int | None = None  # replay: only positions below this
        self.expanded: set[int] = set()  # positions of thinking rows opened in place
        self._index_timer = QTimer(self)
        self._index_timer.setInterval(0)
        self._index_timer.timeout.connect(self._index_slice)
        if self.store.indexed < self.store.count:
            self._index_timer.start()
            self.indexingChanged.emit(True)
        else:
            self._rows = self._filtered()

    @classmethod
    def open_file(cls, path: Path, parent: QObject | None = None) -> TranscriptModel:
        """A model over an existing log, on screen before it is indexed."""
        store = FileEvents(Path(path))
        model = cls(store, parent)
        first = store.get(0)
        if first is not None:
            model._learn(first)
        return model

    # --- Qt model API -----------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex = _EMPTY) -> int:
        if parent.isValid():
            return 0
        if self._rows is None:
            return self.store.count if self._limit is None else min(self.store.count,
                                                                    self._limit)
        return len(self._rows)

    def position(self, row: int) -> int:
        """The store position shown at ``row``."""
        return row if self._rows is None else self._rows[row]

    def event_at(self, row: int) -> dict | None:
        """The event behind ``row`` (read lazily for file stores)."""
        if not 0 <= row < self.rowCount():
            return None
        try:
            event = self.store.get(self.position(row))
        except (OSError, ValueError):  # the log went away (closed, deleted) under the view
            return None
        if event is not None:
            self._learn(event)
        return event

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        pos = self.position(index.row())
        if role == SeqRole:
            return pos + 1 if isinstance(self.store, FileEvents) else \
                (self.store.get(pos) or {}).get("seq", pos + 1)
        event = self.event_at(index.row())
        if event is None:
            return "…" if role == Qt.ItemDataRole.DisplayRole else None
        if role == Qt.ItemDataRole.DisplayRole:
            live = self._stream_text.get(pos)
            shown = dict(event, text=live) if live is not None else event
            if pos in self.expanded:
                return expanded_text(shown)
            return preview(shown, self.tools)
        if role == ExpandedRole:
            return pos in self.expanded
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
        if role == MarkdownRole:
            live = self._stream_text.get(pos)
            return full_markdown(dict(event, text=live) if live is not None else event,
                                 self.tools)
        if role == Qt.ItemDataRole.ToolTipRole:
            return event.get("type", "")
        return None

    def can_expand(self, row: int) -> bool:
        """True when ``row`` (a thinking row) can open in place."""
        event = self.event_at(row)
        return event is not None and expandable(str(event.get("type", "")))

    def set_expanded(self, row: int, expanded: bool) -> bool:
        """Open or close a thinking row in place; False when the row cannot open."""
        if not self.can_expand(row):
            return False
        pos = self.position(row)
        if expanded:
            self.expanded.add(pos)
        else:
            self.expanded.discard(pos)
        self.dataChanged.emit(self.index(row), self.index(row))
        return True

    def toggle_expanded(self, row: int) -> bool:
        """Flip a thinking row between one line and its whole text."""
        return self.set_expanded(row, self.position(row) not in self.expanded
                                 if 0 <= row < self.rowCount() else True)

    def row_of(self, pos: int) -> int | None:
        """The row showing store position ``pos`` (None when filtered out)."""
        if self._rows is None:
            return pos if 0 <= pos < self.rowCount() else None
        row = bisect.bisect_left(self._rows, pos)
        return row if row < len(self._rows) and self._rows[row] == pos else None

    # --- live feed ----------------------------------------------------------------------------

    def ingest(self, events: list[dict]) -> None:
        """Add a batch of live events; one row insertion per batch."""
        if not events:
            return
        if self._limit is not None:  # replaying: the live tail waits until replay ends
            self.store.ingest(events)
            return
        start = self.store.count
        self.store.ingest(events)
        end = self.store.count
        if self._rows is None:  # still indexing: identity rows just grow
            if end > start:
                self.beginInsertRows(_EMPTY, start, end - 1)
                self.endInsertRows()
            for event in events:
                self._learn(event)
            return
        new_rows: list[int] = []
        removed: list[int] = []
        changed: set[int] = set()
        by_seq = {e.get("seq"): e for e in events} if isinstance(self.store, FileEvents) else {}
        for pos in range(start, end):
            event = by_seq.get(pos + 1) if by_seq else self.store.get(pos)
            if event is None:
                event = self.store.get(pos)
            if event is None:
                continue
            self._learn(event)
            kind = event.get("type", "")
            node = event.get("nodeId") or ""
            stream = _STREAM_OF.get(kind)
            if stream is not None:
                key = (node, stream)
                live = self._streams.get(key)
                if live is not None and live[2] != event.get("messageId"):
                    # a new message began with no final for the last: that row keeps its text
                    self._streams.pop(key)
                    live = None
                if live is None:
                    self._streams[key] = [pos, str(event.get("text", "")),
                                          event.get("messageId")]
                    self._stream_text[pos] = self._streams[key][1]
                    if self._node in (None, node) and not self._search:
                        new_rows.append(pos)
                elif len(live[1]) < _STREAM_CAP:  # the final carries the whole text
                    live[1] += str(event.get("text", ""))
                    self._stream_text[live[0]] = live[1]
                    changed.add(live[0])
                continue
            final = _FINAL_OF.get(kind)
            if final is not None:
                live = self._streams.pop((node, final), None)
                if live is not None:
                    self._stream_text.pop(live[0], None)
                    if new_rows and live[0] in new_rows:
                        new_rows.remove(live[0])
                    else:
                        removed.append(live[0])
            if self._accepts(pos, event):
                new_rows.append(pos)
        self._remove_positions(removed)
        self._emit_changed(changed)
        if new_rows:
            first = len(self._rows)
            self.beginInsertRows(_EMPTY, first, first + len(new_rows) - 1)
            self._rows.extend(new_rows)
            self.endInsertRows()

    def _remove_positions(self, positions: list[int]) -> None:
        for pos in positions:
            row = bisect.bisect_left(self._rows, pos)
            if row < len(self._rows) and self._rows[row] == pos:
                self.beginRemoveRows(_EMPTY, row, row)
                del self._rows[row]
                self.endRemoveRows()

    def _emit_changed(self, positions: set[int]) -> None:
        rows = []
        for pos in positions:
            row = bisect.bisect_left(self._rows, pos)
            if row < len(self._rows) and self._rows[row] == pos:
                rows.append(row)
        if rows:
            self.dataChanged.emit(self.index(min(rows)), self.index(max(rows)))

    def _learn(self, event: dict) -> None:
        """Remember node labels and tool-call progress seen in events."""
        kind = event.get("type")
        if kind == "run.created":
            for node_id, node in (event.get("nodes") or {}).items():
                self.node_labels[node_id] = node.get("label") or node.get("key") or node_id[:8]
        elif kind == "node.patch":
            label = (event.get("patch") or {}).get("label")
            if label and event.get("nodeId"):
                self.node_labels[event["nodeId"]] = label
        elif kind == "tool.proposed":
            tool = event.get("tool") or {}
            info = self.tools.setdefault(tool.get("id", ""), {})
            info.setdefault("status", "proposed")
            info["name"] = tool.get("name", "?")
        elif kind == "tool.started":
            info = self.tools.setdefault(event.get("toolId", ""), {})
            info.update(status="running", started=event.get("ts"))
        elif kind == "tool.completed":
            info = self.tools.setdefault(event.get("toolId", ""), {})
            info["status"] = "failed" if event.get("error") else "completed"
            info["result"] = event.get("error") or event.get("result")
            if info.get("started") and event.get("ts"):
                info["latency"] = _seconds_between(info["started"], event["ts"])

    # --- filters ---------------------------------------------------------------------------

    @property
    def indexing(self) -> bool:
        """True while a file store is still being indexed (filters wait for it)."""
        return self._rows is None

    def set_filter(self, node_id: str | None = None, types: set[str] | None = None,
                   search: str = "") -> None:
        """Show one node (None: all), these event types (None: default set), matching text."""
        self._node, self._types = node_id, (set(types) if types is not None else None)
        if search != self._search:
            self._search = search
            self._start_search(search)
        if self._rows is not None:
            self.beginResetModel()
            self._rows = self._filtered()
            self.endResetModel()

    # --- full-text search, in slices --------------------------------------------------------

    @property
    def searching(self) -> bool:
        """True while a search is still going through the events."""
        return self._job is not None and not self._job.done

    def _start_search(self, text: str) -> None:
        was = self.searching
        self._search_timer.stop()
        self._job = None
        if not text:
            self._matches = None
            if was:
                self.searchingChanged.emit(False)
            return
        # live stream text is not in any single event: match it too
        low = text.lower()
        self._matches = {p for p, t in self._stream_text.items() if low in t.lower()}
        self._job = TextSearch(self.store, text)
        # the first slice now: a small log is done at once, a big one shows its first matches
        self._matches.update(self._job.step(self.search_slice_seconds))
        if self._job.done:
            self._end_search(was)
        else:
            self._search_timer.start()
            if not was:
                self.searchingChanged.emit(True)

    def _search_slice(self) -> None:
        job = self._job
        if job is None:
            self._search_timer.stop()
            return
        hits = job.step(self.search_slice_seconds)
        if hits:
            self._matches.update(hits)
            if self._rows is not None:
                # events the model has not been fed yet get their rows from ingest()
                known = self.store.count if self._limit is None else min(self.store.count,
                                                                         self._limit)
                allowed = self._type_allowed()
                node = self.store.node_codes.index.get(self._node, -1) if self._node else None
                types, nodes = self.store.types, self.store.nodes
                self._insert_positions([
                    p for p in hits if p < known and p < len(types) and allowed[types[p]]
                    and (node is None or nodes[p] == node)])
        if job.done:
            self._end_search(True)

    def _end_search(self, was_searching: bool) -> None:
        self._search_timer.stop()
        if was_searching:
            self.searchingChanged.emit(False)
        self.searchFinished.emit(len(self._matches or ()))

    def finish_search(self) -> None:
        """Run the current search to its end now."""
        while self.searching:
            self._search_slice()

    def _insert_positions(self, positions: list[int]) -> None:
        rows = self._rows
        if not positions or rows is None:
            return
        if not rows or positions[0] > rows[-1]:  # the usual case: matches further down
            self.beginInsertRows(_EMPTY, len(rows), len(rows) + len(positions) - 1)
            rows.extend(positions)
            self.endInsertRows()
            return
        for pos in positions:
            row = bisect.bisect_left(rows, pos)
            if row < len(rows) and rows[row] == pos:
                continue
            self.beginInsertRows(_EMPTY, row, row)
            rows.insert(row, pos)
            self.endInsertRows()

    def set_limit(self, count: int | None) -> None:
        """Replay: show only the first ``count`` events (None: all of them)."""
        if count == self._limit:
            return
        self.beginResetModel()
        self._limit = count
        if count is None and isinstance(self.store, FileEvents) and self._rows is not None:
            self.store.index_step(1 << 30)
        if self._rows is not None:
            self._rows = self._filtered()
        self.endResetModel()

    def _type_allowed(self) -> list[bool]:
        names = self.store.type_codes.names
        if self._types is None:
            return [n not in HIDDEN_BY_DEFAULT for n in names]
        return [n in self._types for n in names]

    def _accepts(self, pos: int, event: dict) -> bool:
        kind = event.get("type", "")
        if self._types is None:
            if kind in HIDDEN_BY_DEFAULT:
                return False
        elif kind not in self._types:
            return False
        if self._node is not None and event.get("nodeId") != self._node:
            return False
        if self._matches is None or pos in self._matches:
            return True
        # a live event after the search went through the log; before that, the search
        # itself reaches it (the log holds an event before the model is fed it)
        if not self.searching and event_matches(event, self._search):
            self._matches.add(pos)
            return True
        return False

    def _filtered(self) -> array:
        allowed = self._type_allowed()
        types, nodes = self.store.types, self.store.nodes
        count = min(len(types), self.store.count)
        if self._limit is not None:
            count = min(count, self._limit)
        # a search has few matches: walk those, not every event of the log
        candidates = range(count) if self._matches is None else \
            sorted(i for i in self._matches if i < count)
        if self._node is not None:
            code = self.store.node_codes.index.get(self._node, -1)
            rows = [i for i in candidates if nodes[i] == code and allowed[types[i]]]
        else:
            rows = [i for i in candidates if allowed[types[i]]]
        live = [p for p in self._stream_text
                if self._node is None or self._stream_node(p) == self._node]
        if live and self._matches is None:
            rows = sorted(set(rows).union(live))
        return array("q", rows)

    def _stream_node(self, pos: int) -> str:
        return next((k[0] for k, v in self._streams.items() if v[0] == pos), "")

    def _index_slice(self) -> None:
        if not self.store.index_step(1 << 20):
            return
        self._index_timer.stop()
        self.beginResetModel()
        self._rows = self._filtered()
        self.endResetModel()
        self.indexingChanged.emit(False)

    def close(self) -> None:
        """Stop indexing and release the store."""
        self._index_timer.stop()
        self._search_timer.stop()
        self.store.close()


def _seconds_between(start: str, end: str) -> float | None:
    from datetime import datetime

    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0.0, (b - a).total_seconds())
