"""Stopping a best-of-N run at any moment reaches its attempts: none starts after the stop,
the running ones end, and no choice is asked of a person for a stopped run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import events_of, of_type, workflow

from desktop.runtime.recovery import create_run

SLOW = [{"say": "thinking"}, {"sleep": 30}, {"say": "done"}]


def attempts_doc(script: dict[str, Any]) -> Any:
    return workflow({"impl": {"attempts": [{"model": "a"}, {"model": "b"}, {"model": "c"}],
                              "script": {"models": script}}})


@pytest.mark.parametrize("moment", ["turn.status", "attempt.started"])
async def test_a_stop_right_after_start_reaches_every_attempt(tmp_path: Path,
                                                              moment: str) -> None:
    """``moment``: the stop is asked as the node's turn is recorded (its attempts not yet
    made), or as its first attempt's agent is announced (the others still being set up)."""
    doc = attempts_doc({"a": [{"say": "quick a"}], "b": [{"say": "quick b"}], "c": SLOW}
                       if moment == "turn.status" else {"a": SLOW, "b": SLOW, "c": SLOW})
    engine = create_run(doc, tmp_path)
    stop_at: list[int] = []
    stopping: list[asyncio.Task[None]] = []

    def listen(events: list[dict[str, Any]]) -> None:
        for event in events:
            if not stop_at and event.get("type") == moment:
                stop_at.append(event["seq"])
                stopping.append(asyncio.ensure_future(engine.stop()))

    engine.recorder.listen(listen)
    try:
        # the attempts sleep 30 s: a run that waited for them (or for the engine's 10 s
        # grace on a turn that ignores the stop) times out here
        status = await asyncio.wait_for(engine.run(), 8)
        await asyncio.gather(*stopping)
    finally:
        engine.close()
    assert status == "stopped"
    events = events_of(engine.run_dir)
    after = [e for e in events if e["seq"] > stop_at[0]]
    assert not [e for e in after if e.get("type") == "bus.message"
                and "started (pid" in str(e.get("message"))], "an agent started after the stop"
    if moment == "turn.status":  # asked before any attempt was made: none is
        assert not of_type(events, "attempt.started"), "an attempt began after the stop"
    assert not of_type(events, "approval.requested"), "a stopped run asked for a choice"
    assert not of_type(events, "choice.made")
    [ended] = [e for e in events if e.get("type") == "turn.status"
               and e.get("status") != "started" and "attemptIndex" not in e]
    assert ended["status"] == "cancelled" and ended["reason"] == "stopped by the user"
    # every agent that did start was ended with the run
    for started in of_type(events, "attempt.started"):
        [done] = [e for e in of_type(events, "attempt.completed")
                  if e["attemptIndex"] == started["attemptIndex"]]
        assert done["summary"]["ok"] is False
