"""An INTERACTIVE run that waits for Step says so in its run list row, so a run whose tab
was closed stays in the inbox of what waits on a person."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine_helpers import until, workflow

from desktop.contract.api import RunSummary
from desktop.graph.io import load_workflow
from desktop.runtime.recovery import create_run
from desktop.views.run_list import summary_row


async def test_a_run_waiting_for_step_is_listed_as_waiting_and_not_once_it_moves(
        tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"say": "1"}]}, "b": {"script": [{"say": "2"}]}},
                   [{"from": "a", "to": "b"}])
    engine = create_run(doc, tmp_path, mode="INTERACTIVE")
    task = asyncio.create_task(engine.run())
    try:
        await until(lambda: engine.state.status == "running" and engine.waiting_for_input())
        row = summary_row(engine.state, live=True)
        RunSummary.model_validate(row)  # the API's shape
        [step] = row["waiting"]
        assert (step["kind"], step["node"], step["nodeId"]) == ("step", "A", engine.find_node("a"))
        assert "1 item queued for 1 node" in step["reason"]
        engine.set_mode(mode="auto")
        assert await asyncio.wait_for(task, 20) == "completed"
        assert "waiting" not in summary_row(engine.state, live=False)
    finally:
        if not task.done():
            await engine.stop("the test is over")
            await asyncio.wait_for(task, 20)
        engine.close()


async def test_a_run_waiting_for_step_inside_a_subflow_is_listed_as_waiting(
        tmp_path: Path) -> None:
    doc = load_workflow(Path(__file__).resolve().parents[2] / "resources" / "examples"
                        / "subflow-review.flow.yaml")
    engine = create_run(doc, tmp_path, mode="INTERACTIVE")
    task = asyncio.create_task(engine.run())
    try:
        # the subflow node's step starts its inside, where Reviewer's turn comes next
        for key in ("writer", "review", "review/reviewer"):
            await until(lambda key=key: engine.waiting_for_input()
                        and bool(engine.state.inboxes.get(engine.find_node(key))))
            if key != "review/reviewer":
                engine.step()
        [step] = summary_row(engine.state, live=True)["waiting"]
        assert (step["kind"], step["nodeId"]) == ("step", engine.find_node("review/reviewer"))
    finally:
        if not task.done():
            await engine.stop("the test is over")
            await asyncio.wait_for(task, 20)
        engine.close()
