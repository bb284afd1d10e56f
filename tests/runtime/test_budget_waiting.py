"""A node's wall budget counts the time its agent works, not the time its turn waits for a
person; and a question whose turn was cancelled is no longer open: a late answer is refused,
never reported as taken."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import events_of, of_type, until, workflow

from desktop.runtime.approvals import ApprovalError
from desktop.runtime.recovery import create_run

GATED = {"cliPermissionsMode": "gated"}


async def test_waiting_for_an_approval_does_not_use_up_the_wall_budget(
        tmp_path: Path) -> None:
    doc = workflow({"g": {"permissions": GATED, "budget": {"maxWallSec": 1},
                          "script": [{"shell": "echo hi"}, {"say": "ran"}]}})
    engine = create_run(doc, tmp_path)
    loop = asyncio.get_running_loop()

    async def answer_late(approval_id: str) -> None:
        # the person takes longer than the node's whole wall budget to answer
        await asyncio.sleep(2.0)
        engine.broker.resolve(approval_id, "approved", by="test")

    answers: list[asyncio.Task[None]] = []
    engine.broker.subscribe(lambda pending: answers.append(
        loop.create_task(answer_late(pending.approval_id))))
    try:
        status = await asyncio.wait_for(engine.run(exit_on_pause=True), 30)
        await asyncio.gather(*answers)
    finally:
        engine.close()
    events = events_of(engine.run_dir)
    assert status == "completed", [e.get("reason") for e in of_type(events, "run.paused")]
    [resolved] = of_type(events, "approval.resolved")
    assert resolved["resolution"]["status"] == "approved"
    # the approved turn went on: one agent run, not cancelled and redone
    assert len(of_type(events, "turn.status", status="started")) == 1
    assert engine.state.node_usage[engine.find_node("g")]["wallSec"] < 1


async def test_an_answer_after_its_turn_was_cancelled_is_refused(tmp_path: Path) -> None:
    doc = workflow({"g": {"permissions": GATED,
                          "script": [{"usage": {"inputTokens": 50, "outputTokens": 50}},
                                     {"shell": "echo hi"}, {"say": "ran"}]}})
    engine = create_run(doc, tmp_path)
    asked: list[Any] = []
    late: list[BaseException] = []

    def answer_on_pause(events: list[dict[str, Any]]) -> None:
        # a person answers the moment the run says it paused over budget
        if asked and any(e.get("type") == "run.budget_exceeded" for e in events):
            try:
                engine.broker.resolve(asked[0].approval_id, "approved", by="test")
            except ApprovalError as exc:
                late.append(exc)

    engine.broker.subscribe(asked.append)
    engine.recorder.listen(answer_on_pause)
    task = asyncio.create_task(engine.run(exit_on_pause=True))
    try:
        await until(lambda: bool(asked) or task.done())
        # the node's budget is lowered below what it spent while its question waits
        engine.set_budget("g", {"maxTokens": 10})
        assert await asyncio.wait_for(task, 30) == "paused"
    finally:
        if not task.done():
            task.cancel()
        engine.close()
    [refused] = late
    assert "no longer pending" in str(refused) and "budget exceeded" in str(refused)
    with pytest.raises(ApprovalError, match="no longer pending"):
        engine.broker.resolve(asked[0].approval_id, "approved", by="test")
    events = events_of(engine.run_dir)
    [resolved] = of_type(events, "approval.resolved")
    assert resolved["resolution"]["status"] == "denied"
    assert "budget exceeded" in resolved["resolution"]["reason"]
    assert not engine.state.pending_approvals
