"""Random access to a run's ``events.jsonl`` by seq, for views that must open huge logs fast.

Opening costs one read of the file's tail (the last seq). A row's event is found by
bisecting byte offsets, so the first screen of a million-event log is on display before
anything else is read. :meth:`LogFile.index_step` then builds, a slice at a time, the
per-event type and node codes that filters need. Every field comes from decoding the
line with :func:`desktop.store.jsonl.decode_line` (the log's one decoder), never from
matching its bytes, so nothing here depends on the order the writer puts keys in.
No Qt here: the views drive the slices from their own timers.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from pathlib import Path

from desktop.store.jsonl import complete_end, decode_line, file_size
from desktop.store.safe_open import open_file

_CACHE_PAGES = 64


class Codes:
    """Small integer codes for repeated strings (event types, node ids); 0 means none."""

    def __init__(self) -> None:
        self.names: list[str] = [""]
        self.index: dict[str, int] = {"": 0}

    def code(self, name: str | None) -> int:
        """The code of ``name`` (assigned on first sight)."""
        if not name:
            return 0
        found = self.index.get(name)
        if found is None:
            found = self.index[name] = len(self.names)
            self.names.append(name)
        return found


def _event_of(line: bytes) -> dict | None:
    """The event on ``line``, or None for a line that is not one."""
    event = decode_line(line)
    return event if type(event) is dict else None


def _seq_of(line: bytes) -> int | None:
    """The seq of the event on ``line``, or None for a line that is not an event."""
    event = _event_of(line)
    return event["seq"] if event is not None else None


def _text(value: object) -> str | None:
    return value if type(value) is str else None


class LogFile:
    """Reads events by seq from one log file; safe to use while a writer appends."""

    PAGE = 256

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fh = open_file(self.path)  # lives as long as the view
        self._pages: OrderedDict[int, list[dict | None]] = OrderedDict()
        self._anchors: dict[int, int] = {}  # seq -> byte offset of its line
        self.offsets = array("q")  # offsets[i]: line of seq i+1, once indexed
        self.types = array("H")
        self.nodes = array("H")
        self.type_codes = Codes()
        self.node_codes = Codes()
        self._scan_pos = 0

    def close(self) -> None:
        """Release the file."""
        self._fh.close()

    # --- size and tail ----------------------------------------------------------------

    def _complete_end(self) -> int:
        return complete_end(self._fh, file_size(self._fh))

    def last_seq(self) -> int:
        """The seq of the last complete line (0 for an empty log)."""
        end = self._complete_end()
        pos = end - 1
        while pos > 0:
            start = max(0, pos - 65536)
            self._fh.seek(start)
            chunk = self._fh.read(pos - start)
            nl = chunk.rfind(b"\n")
            line_start = start + nl + 1 if nl >= 0 else start
            if nl >= 0 or start == 0:
                self._fh.seek(line_start)
                seq = _seq_of(self._fh.readline())
                if seq is not None:
                    self._anchors[seq] = line_start
                    return seq
                pos = line_start - 1
                continue
            pos = start
        return 0

    # --- locating and reading -----------------------------------------------------------

    def _line_at_or_after(self, offset: int, end: int) -> tuple[int, int | None]:
        """(start, seq) of the first line beginning at or after ``offset``."""
        if offset > 0:
            self._fh.seek(offset - 1)
            head = self._fh.read(min(65536, end - offset + 1))
            nl = head.find(b"\n")
            while nl < 0 and offset + len(head) - 1 < end:
                more = self._fh.read(65536)
                if not more:
                    break
                head += more
                nl = head.find(b"\n")
            if nl < 0:
                return end, None
            offset = offset - 1 + nl + 1
        if offset >= end:
            return end, None
        self._fh.seek(offset)
        return offset, _seq_of(self._fh.readline())

    def locate(self, seq: int) -> int | None:
        """Byte offset of the line with ``seq`` (or of the first line after it)."""
        if 0 < seq <= len(self.offsets):
            return self.offsets[seq - 1]
        if seq in self._anchors:
            return self._anchors[seq]
        end = self._complete_end()
        lo, hi = 0, end
        known = [(s, o) for s, o in self._anchors.items() if o < end]
        for s, o in known:  # narrow the bisection with what we already know
            if s <= seq and o > lo:
                lo = o
            if s > seq and o < hi:
                hi = o
        if len(self.offsets):
            lo = max(lo, self.offsets[-1])
        while hi - lo > 4096:
            mid = (lo + hi) // 2
            start, found = self._line_at_or_after(mid, end)
            if found is None or start >= hi:
                hi = mid
            elif found <= seq:
                lo = start
                self._anchors[found] = start
            else:
                hi = start
        start, found = self._line_at_or_after(lo, end)
        while found is not None and found < seq:
            self._fh.seek(start)
            line = self._fh.readline()
            start += len(line)
            if start >= end:
                return None
            self._fh.seek(start)
            found = _seq_of(self._fh.readline())
        return start if found is not None else None

    def page(self, first_seq: int) -> list[dict | None]:
        """Events ``first_seq .. first_seq+PAGE-1`` (None where a seq is absent)."""
        cached = self._pages.get(first_seq)
        if cached is not None:
            self._pages.move_to_end(first_seq)
            return cached
        out: list[dict | None] = [None] * self.PAGE
        offset = self.locate(first_seq)
        if offset is not None:
            end = self._complete_end()
            self._fh.seek(offset)
            while offset < end:
                line = self._fh.readline()
                if not line.endswith(b"\n"):
                    break
                offset += len(line)
                event = decode_line(line)  # orjson takes the newline as whitespace
                if type(event) is not dict:
                    continue
                seq = event["seq"]
                if seq >= first_seq + self.PAGE:
                    self._anchors[seq] = offset - len(line)
                    break
                if seq >= first_seq:
                    out[seq - first_seq] = event
            complete = all(e is not None for e in out)
            if not complete and offset >= end:
                return out  # the tail is still growing: do not cache a partial page
        self._pages[first_seq] = out
        if len(self._pages) > _CACHE_PAGES:
            self._pages.popitem(last=False)
        return out

    def get(self, seq: int) -> dict | None:
        """The event with ``seq``, or None."""
        first = ((seq - 1) // self.PAGE) * self.PAGE + 1
        return self.page(first)[seq - first]

    def raw(self, seq: int) -> bytes:
        """The raw line of an indexed ``seq`` (for full-text search without parsing)."""
        offset = self.locate(seq)
        if offset is None:
            return b""
        self._fh.seek(offset)
        return self._fh.readline()

    # --- background indexing --------------------------------------------------------------

    @property
    def indexed(self) -> int:
        """How many events have type and node codes."""
        return len(self.types)

    @property
    def offsets_count(self) -> int:
        """How many events have a known byte offset."""
        return len(self.offsets)

    def note_live(self, events: list[dict]) -> None:
        """Take the codes of live events straight from their dicts (no file read); their
        offsets are found by bisection until a later :meth:`index_step` catches up."""
        types, nodes = self.types, self.nodes
        tcode, ncode = self.type_codes.code, self.node_codes.code
        for event in events:
            seq = event.get("seq")
            if type(seq) is int and seq == len(types) + 1:
                types.append(tcode(event.get("type")))
                nodes.append(ncode(event.get("nodeId")))

    def search_step(self, needle: bytes, start: int, budget: int = 8 << 20
                    ) -> tuple[list[int], int, bool]:
        """Seqs of lines from byte ``start`` whose lowercased bytes contain ``needle``.

        Returns (seqs, next_start, done); scans about ``budget`` bytes per call. The
        chunk is lowercased and searched whole, so only matching lines cost more.
        """
        end = self._complete_end()
        if start >= end:
            return [], start, True
        self._fh.seek(start)
        data = self._fh.read(min(budget, end - start))
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            data = data + self._fh.readline()
            cut = len(data)
        chunk = data[:cut].lower()
        hits = []
        at = chunk.find(needle) if needle and b"\n" not in needle else -1
        while at >= 0:
            line_start = chunk.rfind(b"\n", 0, at) + 1
            line_end = chunk.find(b"\n", at)
            seq = _seq_of(data[line_start:line_end])  # lower() keeps every offset
            if seq is not None:
                hits.append(seq)
            at = chunk.find(needle, line_end + 1)
        return hits, start + cut, start + cut >= end

    @property
    def scanned(self) -> int:
        """The byte offset up to which the file is indexed (just past a complete line)."""
        return self._scan_pos

    def index_step(self, budget: int = 4 << 20, into: list[dict] | None = None) -> bool:
        """Index up to ``budget`` more bytes; True once the whole current file is indexed.
        With ``into``, each event indexed is appended to it as well (so one read of the log
        can feed a projection too)."""
        end = self._complete_end()
        if self._scan_pos >= end:
            return True
        self._fh.seek(self._scan_pos)
        data = self._fh.read(min(budget, end - self._scan_pos))
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # one line longer than the budget: take it whole
            data = data + self._fh.readline()
            cut = len(data)
        pos = self._scan_pos
        offsets, types, nodes = self.offsets, self.types, self.nodes
        tcode, ncode = self.type_codes.code, self.node_codes.code
        for line in data[:cut].split(b"\n")[:-1]:
            event = _event_of(line)
            seq = event["seq"] if event is not None else 0
            if event is not None and seq > len(offsets):
                while len(offsets) < seq - 1:  # a missing seq keeps its row, as "none"
                    offsets.append(pos)
                    if len(types) < len(offsets):
                        types.append(0)
                        nodes.append(0)
                offsets.append(pos)
                if into is not None:
                    into.append(event)
                if seq > len(types):  # live events may have been coded already
                    types.append(tcode(_text(event.get("type"))))
                    nodes.append(ncode(_text(event.get("nodeId"))))
            pos += len(line) + 1
        self._scan_pos = pos
        return self._scan_pos >= end
