"""The run's event log: one writer appends batches; other processes may append under the lock.

Events on disk are compact JSON lines starting with ``seq`` (see :mod:`desktop.store.jsonl`).
The writer buffers events in memory (``append``) and writes each batch with one ``write()``
under ``events.jsonl.lock`` (``flush``), first absorbing lines other processes appended with
:func:`append_external`. Subscribers hear about events only after they are on disk.
"""

import contextlib
import json
import logging
import os
import threading
import uuid
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any, BinaryIO

import orjson
from filelock import FileLock

from desktop.contract.base import new_id, utc_now
from desktop.contract.events import EventBase
from desktop.store.jsonl import (
    EVENTS_FILE,
    LOCK_SUFFIX,
    Problem,
    complete_end,
    decode_line,
    file_size,
    iter_lines,
    last_event,
)
from desktop.store.safe_open import check_regular, open_file

log = logging.getLogger(__name__)
Subscriber = Callable[[list[dict]], None]


class Durability(StrEnum):
    """When appended events are forced to stable storage."""

    BATCH = "batch"  # fsync each batch before subscribers are told (default)
    NONE = "none"  # hand to the OS only; for benches and tests that ask for it


def _run_id_from(run_dir: Path) -> str | None:
    try:
        return str(uuid.UUID(run_dir.name))
    except ValueError:
        return None


def _normalize(event: EventBase | dict, run_id: str | None) -> dict:
    """A fresh wire-form dict of ``event`` with id/ts/runId filled in and no seq."""
    if isinstance(event, EventBase):
        d = event.to_json_dict()
    elif isinstance(event, dict):
        d = dict(event)
    else:
        raise TypeError(f"an event must be an EventBase or a dict, not {type(event).__name__}")
    if not isinstance(d.get("type"), str):
        raise ValueError("an event needs a string 'type'")
    d.pop("seq", None)
    if "id" not in d:
        d["id"] = new_id()
    if "ts" not in d:
        d["ts"] = utc_now()
    if "runId" not in d and run_id:
        d["runId"] = run_id
    return d


def _recovered(problem: Problem, run_id: str | None) -> dict:
    d: dict[str, Any] = {"id": new_id(), "ts": utc_now(), "type": "log.recovered"}
    if run_id:
        d["runId"] = run_id
    d.update(problem=problem.kind, offset=problem.offset, length=problem.length,
             detail=problem.detail)
    return d


def _json_default(obj: Any) -> Any:
    """JSON form of values orjson does not know, so one odd value never blocks the log."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", by_alias=True)
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if isinstance(obj, bytes):
        return obj.decode("utf-8", "replace")
    return str(obj)


_OPTIONS = orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS


def encode_event(d: dict) -> bytes:
    """One log line for ``d`` (which carries its seq): compact JSON and a newline."""
    try:
        return orjson.dumps(d, default=_json_default, option=_OPTIONS)
    except TypeError:  # e.g. an int beyond 64 bits: the slow, lenient encoder
        return json.dumps(d, default=str, ensure_ascii=False,
                          separators=(",", ":")).encode("utf-8", "replace") + b"\n"


# appends change the size, which fdatasync also flushes; it skips only timestamps
_sync = getattr(os, "fdatasync", os.fsync)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class EventLog:
    """The single writer of ``run_dir/events.jsonl``. Holds no lock between flushes."""

    def __init__(self, run_dir: Path, durability: Durability) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / EVENTS_FILE
        self.durability = Durability(durability)
        self.run_id: str | None = None
        self.last_seq = 0
        self.problems: list[Problem] = []
        check_regular(str(self.path) + LOCK_SUFFIX)
        self._lock = FileLock(str(self.path) + LOCK_SUFFIX)
        self._mutex = threading.Lock()
        self._fh = open_file(self.path, "a+b", buffering=0)  # lives with the log
        self._end = 0  # offset just past the last line we know about
        self._buffer: list[dict] = []
        self._subscribers: list[Subscriber] = []
        self._closed = False

    @classmethod
    def open(cls, run_dir: Path, *, durability: Durability = Durability.BATCH) -> "EventLog":
        """Open (creating if missing) the log of ``run_dir``, repairing a torn tail."""
        Path(run_dir).mkdir(parents=True, exist_ok=True)
        self = cls(Path(run_dir), durability)
        with self._mutex, self._lock:
            problems = self._scan()
            self.problems.extend(problems)
            self._write_batch([_recovered(p, self.run_id) for p in problems])
        return self

    # --- public API -------------------------------------------------------------------

    def append(self, event: EventBase | dict) -> None:
        """Buffer ``event`` for the next flush: no I/O, the caller's object is not changed."""
        if self._closed:
            raise RuntimeError(f"event log {self.path} is closed")
        if type(event) is dict and type(event.get("type")) is str and "seq" not in event \
                and "id" in event and "ts" in event and "runId" in event:
            d = event.copy()  # the runtime's usual, complete event: the fast path
        else:
            d = _normalize(event, self.run_id)
        if self.run_id is None:
            self._note_run_id(d)
        self._buffer.append(d)

    def append_many(self, events: list[dict]) -> None:
        """Buffer complete event dicts, taking them over (the log adds their ``seq``).

        For a writer that builds each event for the log alone (the runtime's recorder):
        dicts with a string ``type``, ``id``, ``ts`` and ``runId`` and no ``seq`` are kept
        as they are; anything else is normalized into a copy as by :meth:`append`.
        """
        if self._closed:
            raise RuntimeError(f"event log {self.path} is closed")
        buffer = self._buffer
        for event in events:
            if type(event) is dict and type(event.get("type")) is str and "seq" not in event \
                    and "id" in event and "ts" in event and "runId" in event:
                d = event
            else:
                d = _normalize(event, self.run_id)
            if self.run_id is None:
                self._note_run_id(d)
            buffer.append(d)

    def flush(self) -> list[dict]:
        """Absorb external lines, write buffered events, notify subscribers; return them all."""
        return self._flush(own=True)

    def absorb_external(self) -> list[dict]:
        """Pick up lines other processes appended (and tell subscribers) without own events."""
        return self._flush(own=False)

    def subscribe(self, cb: Subscriber) -> Callable[[], None]:
        """Call ``cb(events)`` after each flush that wrote or absorbed events."""
        self._subscribers.append(cb)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(cb)

        return unsubscribe

    def close(self) -> None:
        """Flush what is buffered and release the file."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            self._fh.close()

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internals ----------------------------------------------------------------------

    def _flush(self, own: bool) -> list[dict]:
        with self._mutex:
            if (not own or not self._buffer) and file_size(self._fh) == self._end:
                return []
            mine, self._buffer = (self._buffer, []) if own else ([], self._buffer)
            try:
                with self._lock:
                    absorbed, problems = self._absorb()
                    reports = [_recovered(p, self.run_id) for p in problems]
                    written = self._write_batch(reports + mine)
            except BaseException:
                self._buffer = mine + self._buffer
                raise
        out = absorbed + written
        if out:
            self._notify(out)
        return out

    def _write_batch(self, batch: list[dict]) -> list[dict]:
        """Write ``batch`` with one write (lock held); on error leave the file as it was."""
        if not batch:
            return []
        seq = self.last_seq
        for d in batch:
            seq += 1
            d["seq"] = seq
        try:  # the common case in one tight loop; odd values take the lenient path
            dumps, opts = orjson.dumps, _OPTIONS
            data = b"".join([dumps(d, option=opts) for d in batch])
        except TypeError:
            data = b"".join(map(encode_event, batch))
        fd = self._fh.fileno()
        try:
            _write_all(fd, data)
            if self.durability is Durability.BATCH:
                _sync(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self._end)
            raise
        self.last_seq = seq
        self._end += len(data)
        return batch

    def _notify(self, events: list[dict]) -> None:
        for cb in list(self._subscribers):
            try:
                cb(events)
            except Exception:  # a broken subscriber must not stop the run's log
                log.exception("event-log subscriber %r failed", cb)

    def _note_run_id(self, d: dict) -> None:
        if self.run_id is None and isinstance(d.get("runId"), str):
            self.run_id = d["runId"]

    def _cut(self, offset: int) -> None:
        os.ftruncate(self._fh.fileno(), offset)
        os.fsync(self._fh.fileno())

    def _scan(self) -> list[Problem]:
        """Read the whole log once (lock held): last seq, run id, corrupt lines, torn tail."""
        fh = self._fh
        size = file_size(fh)
        end = complete_end(fh, size)
        problems: list[Problem] = []
        reported: set[int] = set()
        last_bad: Problem | None = None
        for off, line in iter_lines(fh, 0, end):
            d = decode_line(line)
            if isinstance(d, dict) and d["seq"] <= self.last_seq:
                d = f"seq {d['seq']} is not above {self.last_seq}"
            if isinstance(d, str):
                last_bad = Problem("corrupt_line", off, len(line) + 1, d)
                problems.append(last_bad)
                continue
            last_bad = None
            self.last_seq = d["seq"]
            self._note_run_id(d)
            if d.get("type") == "log.recovered" and d.get("problem") == "corrupt_line":
                reported.add(d.get("offset"))
        cut = end
        if last_bad is not None:  # an unparsable last line counts as part of the torn tail
            problems.pop()
            cut = last_bad.offset
        problems = [p for p in problems if p.offset not in reported]
        if cut < size:
            problems.append(Problem("torn_tail", cut, size - cut,
                                    f"cut {size - cut} bytes of an incomplete last line"))
            self._cut(cut)
        self._end = cut
        if self.run_id is None:
            self.run_id = _run_id_from(self.run_dir)
        return problems

    def _absorb(self) -> tuple[list[dict], list[Problem]]:
        """Lines appended by other processes since our last write (lock held)."""
        fh = self._fh
        size = file_size(fh)
        if size < self._end:  # shrunk under us: resynchronise on what is there
            self._end = complete_end(fh, size)
            last, _ = last_event(fh, self._end)
            self.last_seq = max(self.last_seq, last["seq"] if last else 0)
        if size == self._end:
            return [], []
        end = complete_end(fh, size)
        absorbed: list[dict] = []
        problems: list[Problem] = []
        for off, line in iter_lines(fh, self._end, end):
            d = decode_line(line)
            if isinstance(d, dict) and d["seq"] <= self.last_seq:
                d = f"seq {d['seq']} is not above {self.last_seq}"
            if isinstance(d, str):
                problems.append(Problem("corrupt_line", off, len(line) + 1, d))
                continue
            self.last_seq = d["seq"]
            self._note_run_id(d)
            absorbed.append(d)
        if end < size:
            problems.append(Problem("torn_tail", end, size - end,
                                    f"cut {size - end} bytes of an incomplete last line"))
            self._cut(end)
        self._end = end
        self.problems.extend(problems)
        return absorbed, problems


def append_external(bus_path: Path, event: dict,
                    accept: Callable[[BinaryIO, int], None] | None = None) -> int:
    """Append ``event`` to a run's log from another process; returns its seq.

    Takes the writer's lock, so lines never interleave; the writer absorbs them on its
    next flush. A torn tail left by a crashed appender is cut and reported first.
    ``accept`` is called under the lock with the log and the end of its last whole line,
    before anything is written: what it raises refuses the event, the log untouched.
    """
    path = Path(bus_path)
    check_regular(str(path) + LOCK_SUFFIX)
    with FileLock(str(path) + LOCK_SUFFIX), open_file(path, "a+b", buffering=0) as fh:
        size = file_size(fh)
        end = complete_end(fh, size)
        if accept is not None:
            accept(fh, end)
        last, _ = last_event(fh, end)
        seq = last["seq"] if last else 0
        run_id = event.get("runId") or (last or {}).get("runId")
        records: list[dict] = []
        if end < size:
            os.ftruncate(fh.fileno(), end)
            records.append(_recovered(
                Problem("torn_tail", end, size - end,
                        f"cut {size - end} bytes of an incomplete last line"), run_id))
        records.append(_normalize(event, run_id))
        parts = []
        for d in records:
            seq += 1
            d["seq"] = seq
            parts.append(encode_event(d))
        _write_all(fh.fileno(), b"".join(parts))
        os.fsync(fh.fileno())
        return seq
