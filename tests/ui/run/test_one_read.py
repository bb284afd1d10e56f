"""A run opened from its folder (no service holds it) reads its log once: one pass builds
the transcript's index and gives the projection its events."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from desktop.store.eventlog import EventLog
from desktop.ui.run.session import RunSession
from desktop.views import logfile, reader
from desktop.views.logfile import LogFile
from tests.storekit import NODE_A, RUN_ID, created, ev

MESSAGES = 3000


def write_run(folder: Path, *, finished: bool = True) -> int:
    """A run of ``MESSAGES`` messages (finished, or still going); how many events its log
    holds."""
    events = [created(), ev("run.started"),
              *(ev("message.assistant.final", nodeId=NODE_A, text=f"line {i}")
                for i in range(MESSAGES)),
              *([ev("run.completed")] if finished else [])]
    with EventLog.open(folder) as log:
        for event in events:
            log.append(event)
        log.flush()
    return len(events)


def count_decodes(monkeypatch: pytest.MonkeyPatch) -> Counter[int]:
    """How many times each seq's line is decoded, by either reader of the log."""
    decoded: Counter[int] = Counter()
    for module in (logfile, reader):
        def counting(line: bytes, real=module.decode_line) -> object:
            event = real(line)
            if isinstance(event, dict):
                decoded[event["seq"]] += 1
            return event

        monkeypatch.setattr(module, "decode_line", counting)
    return decoded


def test_a_run_opened_from_its_folder_reads_each_event_once(
        qloop: asyncio.AbstractEventLoop, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "data" / "runs" / RUN_ID
    count = write_run(folder)
    decoded = count_decodes(monkeypatch)
    session = RunSession(folder)
    try:
        store = session.model.store
        while not store.index_step():  # what the transcript's timer would still read
            pass
        assert session.state is not None and session.state["status"] == "completed"
        assert store.count == store.indexed == count and len(session.take_past()) == count
        assert set(decoded) == set(range(1, count + 1))
        # each line once, but the first screen's (read for display, a page and the line
        # after it) and the last one (how many rows there are)
        again = {seq for seq, times in decoded.items() if times > 1}
        assert again <= {*range(1, LogFile.PAGE + 2), count}
    finally:
        qloop.run_until_complete(session.close())


def test_following_a_run_goes_on_after_the_one_read(
        qloop: asyncio.AbstractEventLoop, until, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "data" / "runs" / RUN_ID
    count = write_run(folder, finished=False)
    session = RunSession(folder, follow=True)  # another process writes it
    try:
        decoded = count_decodes(monkeypatch)
        with EventLog.open(folder) as log:
            log.append(ev("run.completed"))
            log.flush()
        qloop.run_until_complete(until(lambda: session.state["status"] == "completed"))
        assert session.state["lastSeq"] == count + 1
        assert set(decoded) == {count + 1}  # the tail read on from where the read ended
    finally:
        qloop.run_until_complete(session.close())
