"""The run folder: append with the default durability, fold the log, open its last page.

References, measured in the same run: writing the same lines with plain ``write`` + fsync
per batch (append), a plain loop of ``json.loads`` over the lines (fold), and reading the
whole file to take its last lines (last page).
"""

import json
import os
import shutil
import tempfile
import time
from collections import deque
from pathlib import Path

from desktop.store.eventlog import Durability, EventLog
from desktop.store.reducer import fold_events
from desktop.views.reader import EventReader

RUN_ID = "0b5e7f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
NODES = [f"00000000-0000-4000-8000-00000000000{i}" for i in range(1, 4)]
BATCH = 1000
PAGE = 100


def _created() -> dict:
    nodes = {n: {"id": n, "runId": RUN_ID, "label": f"N{i}"} for i, n in enumerate(NODES)}
    return {"id": "00000000-0000-4000-8000-0000000000aa", "runId": RUN_ID,
            "ts": "2026-01-01T00:00:00.000Z", "type": "run.created", "nodes": nodes}


def _batch(start: int) -> list[dict]:
    """BATCH small events as a streaming turn produces them (mostly transcript deltas)."""
    out = []
    for i in range(start, start + BATCH):
        e = {"id": f"00000000-0000-4000-8000-{i:012d}", "runId": RUN_ID,
             "ts": f"2026-01-01T00:{(i // 60000) % 60:02d}:{(i // 1000) % 60:02d}.{i % 1000:03d}Z",
             "nodeId": NODES[i % 3]}
        k = i % 50
        if k == 0:
            e.update(type="telemetry.usage", inputTokens=12, outputTokens=7)
        elif k == 1:
            e.update(type="node.progress", message=f"step {i}")
        elif k == 2:
            e.update(type="node.heartbeat")
        else:
            e.update(type="message.assistant.delta", text="some streamed words ")
        out.append(e)
    return out


def _append(run_dir: Path, n: int) -> float:
    """Seconds spent in append + flush for n events (building the dicts is not timed)."""
    spent = 0.0
    log = EventLog.open(run_dir, durability=Durability.BATCH)
    log.append(_created())
    log.flush()
    for start in range(0, n, BATCH):
        batch = _batch(start)
        t0 = time.perf_counter()
        for e in batch:
            log.append(e)
        log.flush()
        spent += time.perf_counter() - t0
    log.close()
    return spent


def _raw_append(path: Path, lines: list[bytes]) -> float:
    """The floor: the same bytes written per batch with one write and a data sync."""
    t0 = time.perf_counter()
    with open(path, "ab", buffering=0) as fh:
        for i in range(0, len(lines), BATCH):
            fh.write(b"".join(lines[i:i + BATCH]))
            getattr(os, "fdatasync", os.fsync)(fh.fileno())
    return time.perf_counter() - t0


def _plain_parse(path: Path) -> float:
    t0 = time.perf_counter()
    with open(path, "rb") as fh:
        for line in fh:
            json.loads(line)
    return time.perf_counter() - t0


def _naive_last_page(path: Path) -> float:
    t0 = time.perf_counter()
    with open(path, "rb") as fh:
        tail = deque(fh, maxlen=PAGE)
    [json.loads(x) for x in tail]
    return time.perf_counter() - t0


def _best(fn, repeat: int) -> float:
    return min(fn() for _ in range(repeat))


def run(quick: bool) -> list[dict]:
    """Rows for append, fold and paging over a log of 1,000,000 events (100,000 quick)."""
    n = 100_000 if quick else 1_000_000
    tmp = Path(tempfile.mkdtemp(prefix="bench-store-"))
    try:
        run_dir = tmp / RUN_ID
        append_s = _append(run_dir, n)
        log_path = run_dir / "events.jsonl"
        with open(log_path, "rb") as fh:
            lines = fh.readlines()
        raw_s = _raw_append(tmp / "raw.jsonl", lines)
        del lines
        total = n + 1

        def fold() -> float:
            t0 = time.perf_counter()
            state = fold_events(EventReader(run_dir).iter_events())
            spent = time.perf_counter() - t0
            assert state.last_seq == total, state.last_seq
            return spent

        repeat = 3 if quick else 2
        fold_s = _best(fold, repeat)
        parse_s = _best(lambda: _plain_parse(log_path), repeat)

        def last_page() -> float:
            t0 = time.perf_counter()
            page = EventReader(run_dir).page(limit=PAGE)
            spent = time.perf_counter() - t0
            assert page.events[-1]["seq"] == total
            return spent

        page_s = _best(last_page, 5)
        naive_s = _naive_last_page(log_path)
        for stale in run_dir.glob("events.idx"):
            stale.unlink()
        t0 = time.perf_counter()
        mid = EventReader(run_dir).page(limit=PAGE, before=total // 2)
        cold_s = time.perf_counter() - t0
        assert mid.events[-1]["seq"] == total // 2 - 1
        warm_s = _best(lambda: _timed_page(run_dir, total // 3), 5)
        size_mb = log_path.stat().st_size / 1e6
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    append_rate, raw_rate = n / append_s, n / raw_s
    fold_rate, parse_rate = total / fold_s, total / parse_s
    return [
        {"name": f"append {n:,} events, synced every {BATCH} ({size_mb:.0f} MB)",
         "value": append_rate, "unit": "events/s", "reference": raw_rate,
         "ratio": append_rate / raw_rate, "target": ">= 100,000 events/s",
         "ok": append_rate >= 100_000},
        {"name": "fold: read + parse + fold into RunState", "value": fold_rate,
         "unit": "events/s", "reference": parse_rate, "ratio": fold_rate / parse_rate,
         "target": "ratio >= 0.5 of plain json.loads loop", "ok": fold_rate >= 0.5 * parse_rate},
        {"name": f"open the last page ({PAGE} events)", "value": page_s * 1e3, "unit": "ms",
         "reference": naive_s * 1e3, "ratio": page_s / naive_s, "target": "< 50 ms",
         "ok": page_s < 0.05},
        {"name": "page in the middle, index built cold", "value": cold_s * 1e3, "unit": "ms",
         "reference": naive_s * 1e3, "ratio": cold_s / naive_s, "target": None, "ok": None},
        {"name": "page in the middle, index warm", "value": warm_s * 1e3, "unit": "ms",
         "reference": naive_s * 1e3, "ratio": warm_s / naive_s, "target": "< 50 ms",
         "ok": warm_s < 0.05},
    ]


def _timed_page(run_dir: Path, before: int) -> float:
    t0 = time.perf_counter()
    EventReader(run_dir).page(limit=PAGE, before=before)
    return time.perf_counter() - t0
