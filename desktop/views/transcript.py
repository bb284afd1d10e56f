"""A run's transcript as compact rows over an event store: the part of the view without Qt.

A row is an int: the position of an event in the store. With no filter the rows map to
positions directly, so a million-event log opens with one read of its tail. Filters
(node, event types, full text) produce a sorted array of positions. Streaming deltas
show as one live row per node and message, whose text grows until the final message
replaces it; delta rows are otherwise hidden by default. Tool calls carry their status
(see :mod:`desktop.views.tool_calls`); thinking rows open in place.

A view hears about row changes through a :class:`RowSink` (Qt's begin/end calls map
onto it one to one) and drives the slow work, indexing and searching, in slices.
"""

from __future__ import annotations

import bisect
from array import array
from pathlib import Path

from desktop.views.events import FileEvents, MemoryEvents
from desktop.views.format import (
    HIDDEN_BY_DEFAULT,
    expandable,
    expanded_text,
    full_markdown,
    preview,
)
from desktop.views.search import TextSearch, event_matches
from desktop.views.streams import FINAL_OF, STREAM_OF, LiveStreams
from desktop.views.tool_calls import FINAL, TOOL_EVENTS, RunNotes

LOOK_AHEAD = 5000  # events after a tool call searched for its outcome (lazy file reads)


class RowSink:
    """Told before and after rows change, as Qt's item models are; these do nothing."""

    def begin_insert(self, first: int, last: int) -> None:
        """Rows ``first..last`` are about to appear."""

    def end_insert(self) -> None:
        """They have."""

    def begin_remove(self, first: int, last: int) -> None:
        """Rows ``first..last`` are about to go."""

    def end_remove(self) -> None:
        """They have."""

    def rows_changed(self, first: int, last: int) -> None:
        """Rows ``first..last`` read differently now."""

    def begin_reset(self) -> None:
        """Every row is about to change (a new filter)."""

    def end_reset(self) -> None:
        """They have."""


class TranscriptRows:
    """The rows of a run's transcript; feed live batches with :meth:`ingest`."""

    def __init__(self, store: MemoryEvents | FileEvents | None = None,
                 sink: RowSink | None = None) -> None:
        self.store = store if store is not None else MemoryEvents()
        self.sink: RowSink = sink or RowSink()
        self.notes = RunNotes()
        self.streams = LiveStreams()
        self._node: str | None = None
        self._types: set[str] | None = None  # None: everything but HIDDEN_BY_DEFAULT
        self._search = ""
        self._matches: set[int] | None = None
        self._job: TextSearch | None = None
        self._limit: int | None = None  # replay: only positions below this
        self.expanded: set[int] = set()  # positions of thinking rows opened in place
        self._proposed_at: dict[str, int] = {}  # tool id -> position of its tool.proposed
        self._stale: set[int] = set()  # positions whose line changed since it was read
        # None: identity rows while a file store is indexed (filters wait for the index)
        self._rows: array | None = None
        if self.store.indexed >= self.store.count:
            self._rows = self._filtered()

    @classmethod
    def open_file(cls, path: Path, sink: RowSink | None = None) -> TranscriptRows:
        """Rows over an existing log, readable before it is indexed."""
        return cls.over_file(FileEvents(Path(path)), sink)

    @classmethod
    def over_file(cls, store: FileEvents, sink: RowSink | None = None) -> TranscriptRows:
        """Rows over a log already open (indexed, or to be indexed in slices)."""
        rows = cls(store, sink)
        first = rows.store.get(0)
        if first is not None:
            rows.learn(0, first)
        return rows

    @property
    def node_labels(self) -> dict[str, str]:
        """Node id -> label, as far as the events read so far tell."""
        return self.notes.node_labels

    @property
    def tools(self) -> dict[str, dict]:
        """Tool id -> its record: name, status, result, latency."""
        return self.notes.tools

    # --- rows -----------------------------------------------------------------------

    @property
    def count(self) -> int:
        """How many rows are shown."""
        if self._rows is None:
            return self.store.count if self._limit is None else min(self.store.count,
                                                                    self._limit)
        return len(self._rows)

    def position(self, row: int) -> int:
        """The store position shown at ``row``."""
        return row if self._rows is None else self._rows[row]

    def seq(self, row: int) -> int:
        """The seq of the event at ``row`` (without reading a file store's event)."""
        pos = self.position(row)
        if isinstance(self.store, FileEvents):
            return pos + 1
        return (self.store.get(pos) or {}).get("seq", pos + 1)

    def event_at(self, row: int) -> dict | None:
        """The event behind ``row`` (read lazily from a file store)."""
        if not 0 <= row < self.count:
            return None
        try:
            event = self.store.get(self.position(row))
        except (OSError, ValueError):  # the log went away (closed, deleted) under the view
            return None
        if event is not None:
            self.learn(self.position(row), event)
        return event

    def row_of(self, pos: int) -> int | None:
        """The row showing store position ``pos`` (None when filtered out)."""
        if self._rows is None:
            return pos if 0 <= pos < self.count else None
        row = bisect.bisect_left(self._rows, pos)
        return row if row < len(self._rows) and self._rows[row] == pos else None

    def shown_event(self, row: int) -> dict | None:
        """The event at ``row`` with a live stream's text so far in place of its own."""
        event = self.event_at(row)
        if event is None:
            return None
        live = self.streams.text.get(self.position(row))
        return dict(event, text=live) if live is not None else event

    def display(self, row: int) -> str | None:
        """The row's line (its whole text when opened in place); None until it is read."""
        event = self.shown_event(row)
        if event is None:
            return None
        if self.position(row) in self.expanded:
            return expanded_text(event)
        return preview(event, self.tools, self.notes.merges)

    def markdown(self, row: int) -> str | None:
        """The row's event in full, for the detail pane."""
        event = self.shown_event(row)
        return None if event is None else full_markdown(event, self.tools)

    # --- what the rows know of tool calls -------------------------------------------------

    def learn(self, pos: int, event: dict) -> None:
        """Learn ``event`` (at store position ``pos``); a tool call's row reads its outcome,
        so a later event that changes it marks that row as changed."""
        changed = self.notes.learn(event)
        if event.get("type") == "tool.proposed":
            tool_id = (event.get("tool") or {}).get("id")
            if isinstance(tool_id, str):
                self._proposed_at[tool_id] = pos
                if isinstance(self.store, FileEvents):
                    self._look_ahead(pos, tool_id)
        if changed is not None:
            at = self._proposed_at.get(changed)
            if at is not None and at != pos:
                self._stale.add(at)

    def _look_ahead(self, pos: int, tool_id: str) -> None:
        """Read the events that decide a call read lazily from a file: they may lie below
        the rows read so far, or be hidden by a filter."""
        store = self.store
        codes = store.type_codes.index
        wanted = {codes[t] for t in TOOL_EVENTS - {"tool.proposed"} if t in codes}
        types, nodes = store.types, store.nodes
        if pos >= len(types) or not wanted:
            return
        node = nodes[pos]
        for q in range(pos + 1, min(len(types), store.indexed, pos + LOOK_AHEAD)):
            if self.tools.get(tool_id, {}).get("status") in FINAL:
                return
            if types[q] in wanted and nodes[q] == node:
                event = store.get(q)
                if event is not None:
                    self.notes.learn(event)

    def flush_changes(self) -> list[int]:
        """Tell the sink about rows whose line changed since they were read (a call's
        outcome learned later); returns those rows."""
        rows = sorted(r for r in map(self.row_of, self._stale) if r is not None)
        self._stale.clear()
        if rows:
            self.sink.rows_changed(rows[0], rows[-1])
        return rows

    @property
    def has_changes(self) -> bool:
        """True when rows read earlier now read differently (see :meth:`flush_changes`)."""
        return bool(self._stale)

    # --- thinking rows opened in place ------------------------------------------------

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
        self.sink.rows_changed(row, row)
        return True

    def toggle_expanded(self, row: int) -> bool:
        """Flip a thinking row between one line and its whole text."""
        opened = self.position(row) in self.expanded if 0 <= row < self.count else False
        return self.set_expanded(row, not opened)

    # --- live feed ----------------------------------------------------------------------

    def ingest(self, events: list[dict]) -> None:
        """Add a batch of live events (in seq order); one row insertion per batch."""
        if not events:
            return
        store = self.store
        if self._limit is not None:  # replaying: the live tail waits until replay ends
            store.ingest(events)
            return
        start = store.count
        store.ingest(events)
        end = store.count
        learn = self.learn
        if self._rows is None:  # still indexing: identity rows just grow
            if end > start:
                self.sink.begin_insert(start, end - 1)
                self.sink.end_insert()
            for pos, event in enumerate(events, start):
                learn(pos, event)
            self.flush_changes()
            return
        new_rows: list[int] = []
        removed: list[int] = []
        changed: set[int] = set()
        by_seq = {e.get("seq"): e for e in events} if isinstance(store, FileEvents) else {}
        for pos in range(start, end):
            event = by_seq.get(pos + 1) if by_seq else store.get(pos)
            if event is None:
                event = store.get(pos)
            if event is None:
                continue
            learn(pos, event)
            kind = event.get("type", "")
            node = event.get("nodeId") or ""
            stream = STREAM_OF.get(kind)
            final = FINAL_OF.get(kind)
            attempt = event.get("attemptIndex")
            if attempt is not None:  # a best-of-N node's attempts stream side by side
                stream = f"{stream}/a{attempt}" if stream is not None else None
                final = f"{final}/a{attempt}" if final is not None else None
            if stream is not None:
                started, grown = self.streams.delta(pos, event, (node, stream))
                if started and self._node in (None, node) and not self._search:
                    new_rows.append(pos)
                if grown is not None:
                    changed.add(grown)
                continue
            if final is not None:
                ended = self.streams.end((node, final))
                if ended is not None:
                    if new_rows and ended in new_rows:
                        new_rows.remove(ended)
                    else:
                        removed.append(ended)
            if self._accepts(pos, event):
                new_rows.append(pos)
        self._remove_positions(removed)
        self._changed(changed | self._stale)
        self._stale.clear()
        if new_rows:
            first = len(self._rows)
            self.sink.begin_insert(first, first + len(new_rows) - 1)
            self._rows.extend(new_rows)
            self.sink.end_insert()

    def _remove_positions(self, positions: list[int]) -> None:
        for pos in positions:
            row = bisect.bisect_left(self._rows, pos)
            if row < len(self._rows) and self._rows[row] == pos:
                self.sink.begin_remove(row, row)
                del self._rows[row]
                self.sink.end_remove()

    def _changed(self, positions: set[int]) -> None:
        rows = [r for r in map(self.row_of, positions) if r is not None]
        if rows:
            self.sink.rows_changed(min(rows), max(rows))

    # --- filters ---------------------------------------------------------------------------

    @property
    def indexing(self) -> bool:
        """True while a file store is still being indexed (filters wait for it)."""
        return self._rows is None

    def index_slice(self, budget: int = 1 << 20) -> bool:
        """Index about ``budget`` more bytes of a file store; True once rows are filtered."""
        if self._rows is not None:
            return True
        if not self.store.index_step(budget):
            return False
        self._refilter()
        return True

    def set_filter(self, node_id: str | None = None, types: set[str] | None = None,
                   search: str = "", slice_seconds: float = 0.010) -> bool:
        """Show one node (None: all), these event types (None: the default set), matching
        text. True when a new search began (its first slice has run)."""
        self._node, self._types = node_id, (set(types) if types is not None else None)
        started = False
        if search != self._search:
            self._search = search
            started = self._start_search(search, slice_seconds)
        if self._rows is not None:
            self._refilter()
        return started

    def set_limit(self, count: int | None) -> None:
        """Replay: show only the first ``count`` events (None: all of them)."""
        if count == self._limit:
            return
        self.sink.begin_reset()
        self._limit = count
        if count is None and isinstance(self.store, FileEvents) and self._rows is not None:
            self.store.index_step(1 << 30)
        if self._rows is not None:
            self._rows = self._filtered()
        self.sink.end_reset()

    def _refilter(self) -> None:
        self.sink.begin_reset()
        self._rows = self._filtered()
        self.sink.end_reset()

    # --- full-text search, in slices --------------------------------------------------------

    @property
    def searching(self) -> bool:
        """True while a search is still going through the events."""
        return self._job is not None and not self._job.done

    @property
    def match_count(self) -> int:
        """How many events the current search has matched so far."""
        return len(self._matches or ())

    def _start_search(self, text: str, slice_seconds: float) -> bool:
        self._job = None
        if not text:
            self._matches = None
            return False
        # live stream text is not in any single event: match it too
        low = text.lower()
        self._matches = {p for p, t in self.streams.text.items() if low in t.lower()}
        self._job = TextSearch(self.store, text)
        # the first slice now: a small log is done at once, a big one shows its first matches
        self._matches.update(self._job.step(slice_seconds))
        return True

    def search_slice(self, seconds: float = 0.010) -> bool:
        """Search on for about ``seconds``, showing the matches found; True when done."""
        job = self._job
        if job is None or job.done:
            return True
        hits = job.step(seconds)
        if hits:
            self._matches.update(hits)
            if self._rows is not None:
                # events not fed to the rows yet get theirs from ingest()
                known = self.store.count if self._limit is None else min(self.store.count,
                                                                         self._limit)
                allowed = self._type_allowed()
                node = self.store.node_codes.index.get(self._node, -1) if self._node else None
                types, nodes = self.store.types, self.store.nodes
                self._insert_positions([
                    p for p in hits if p < known and p < len(types) and allowed[types[p]]
                    and (node is None or nodes[p] == node)])
        return job.done

    def _insert_positions(self, positions: list[int]) -> None:
        rows = self._rows
        if not positions or rows is None:
            return
        if not rows or positions[0] > rows[-1]:  # the usual case: matches further down
            self.sink.begin_insert(len(rows), len(rows) + len(positions) - 1)
            rows.extend(positions)
            self.sink.end_insert()
            return
        for pos in positions:
            row = bisect.bisect_left(rows, pos)
            if row < len(rows) and rows[row] == pos:
                continue
            self.sink.begin_insert(row, row)
            rows.insert(row, pos)
            self.sink.end_insert()

    # --- which positions are rows ------------------------------------------------------------

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
        # itself reaches it (the log holds an event before the rows are fed it)
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
        live = [p for p in self.streams.text
                if self._node is None or self.streams.node_of(p) == self._node]
        if live and self._matches is None:
            rows = sorted(set(rows).union(live))
        return array("q", rows)

    def close(self) -> None:
        """Release the store."""
        self.store.close()
