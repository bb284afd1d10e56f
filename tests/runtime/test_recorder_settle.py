"""Recorder.settle: what flush guarantees, awaited while the loop keeps running."""

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.runtime.recorder import Recorder
from desktop.store.eventlog import EventLog
from desktop.views.reader import EventReader

RUN = "11111111-2222-4333-8444-555555555555"
NODE = "aaaaaaaa-0000-4000-8000-000000000001"


@pytest.fixture
def log(tmp_path: Path) -> Iterator[EventLog]:
    with EventLog.open(tmp_path / RUN) as log:
        yield log


def _recorder(log: EventLog) -> tuple[Recorder, list[list[dict]]]:
    recorder = Recorder(log, run_id=RUN)
    heard: list[list[dict]] = []
    recorder.listen(heard.append)
    recorder.emit({"type": "run.created", "nodes": {NODE: {"id": NODE, "runId": RUN,
                                                            "label": "A"}}})
    recorder.flush()
    return recorder, heard


async def test_settle_returns_once_everything_emitted_is_on_disk_and_folded(
        tmp_path: Path, log: EventLog):
    recorder, heard = _recorder(log)
    for i in range(50):
        recorder.emit({"type": "message.assistant.delta", "messageId": "m", "text": str(i)},
                      NODE)
    recorder.emit({"type": "node.patch", "patch": {"summary": "done"}}, NODE)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    await recorder.settle()
    ticker.cancel()
    assert ticks > 0  # the loop ran while the writer thread wrote and synced
    assert recorder.state.nodes[NODE].summary == "done"
    on_disk = list(EventReader(tmp_path / RUN).iter_events())
    assert [e["type"] for e in on_disk[-2:]] == ["message.assistant.delta", "node.patch"]
    assert sum(len(b) for b in heard) == len(on_disk)
    assert [e["seq"] for b in heard for e in b] == [e["seq"] for e in on_disk]
    recorder.close()


async def test_settle_with_nothing_pending_and_repeated(log: EventLog):
    recorder, _ = _recorder(log)
    await recorder.settle()
    recorder.emit({"type": "node.progress", "message": "one"}, NODE)
    await recorder.settle()
    await recorder.settle()
    recorder.emit({"type": "node.progress", "message": "two"}, NODE)
    recorder.flush()
    await recorder.settle()
    assert recorder.state.nodes[NODE].summary == "two"
    recorder.close()
