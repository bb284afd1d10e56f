"""Editing a queued handoff before the receiving node's turn takes it (INTERACTIVE)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from engine_helpers import events_of, of_type, until, workflow

from desktop.runtime.recovery import create_run
from desktop.store.reducer import fold_events


def _doc():
    return workflow(
        {"lead": {"script": [{"handoff": {"to": "worker", "message": "original ask"}}]},
         "worker": {"script": [{"say": "on it"}]}},
        edges=[{"from": "lead", "to": "worker"}])


async def test_edited_handoff_is_what_the_next_turn_reads(tmp_path: Path) -> None:
    engine = create_run(_doc(), tmp_path, mode="INTERACTIVE")
    task = asyncio.create_task(engine.run())
    try:
        worker = engine.find_node("worker")
        engine.step()
        await until(lambda: bool(engine.state.inboxes.get(worker)) and not engine.tasks)
        item = engine.state.inboxes[worker][0]
        assert item.envelope.payload.message == "original ask"
        engine.edit_inbox_item("worker", item.id, "edited ask", structured={"files": ["a.py"]})
        edited = engine.state.inboxes[worker][0]
        assert edited.text == "edited ask"
        assert edited.envelope.payload.message == "edited ask"
        assert edited.envelope.payload.structured == {"files": ["a.py"]}
        engine.step()
        await until(lambda: engine.state.turns.get(worker) == 1)
        await engine.stop()
        await asyncio.wait_for(task, 20)
    finally:
        engine.close()
    prompts = list(engine.run_dir.glob("agents/*/prompt.full.txt"))
    worker_prompt = next(p.read_text() for p in prompts if "edited ask" in p.read_text())
    assert "original ask" not in worker_prompt and '"a.py"' in worker_prompt
    events = events_of(engine.run_dir)
    assert len(of_type(events, "inbox.edited")) == 1
    assert fold_events(events).turns[worker] == 1  # the log alone replays the edit


async def test_editing_an_item_already_taken_is_refused(tmp_path: Path) -> None:
    engine = create_run(_doc(), tmp_path, mode="INTERACTIVE")
    try:
        with pytest.raises(KeyError, match="not queued"):
            engine.edit_inbox_item("worker", "no-such-item", "x")
    finally:
        engine.close()
