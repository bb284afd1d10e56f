"""The inbox lists what else waits on you in the service's live runs: a run that stall
detection paused shows there (with its run's name) in any window, and opening it brings
that run up, where the stall banner is as tall as the outputs it shows; once the run is
stopped it is gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.graph.io import document_data, loads_workflow
from desktop.ui.window import EditorWindow
from desktop.ui.window_questions import Questions

LOOP = """
version: 1
name: Loop
task: go round
nodes:
  - {id: a, label: A, provider: scripted, entry: true}
  - {id: b, label: B, provider: scripted}
nodeConfigs:
  a: {stallThreshold: 2, script: [{say: same again}]}
  b: {stallThreshold: 5, script: [{say: "back to you"}]}
edges:
  - {from: a, to: b, type: handoff}
  - {from: b, to: a, type: handoff}
"""


@pytest.fixture
def window(qloop, qtbot, own_service, monkeypatch):
    monkeypatch.setattr(Questions, "save_changes", lambda self: "discard")
    editor = EditorWindow()
    qtbot.addWidget(editor)
    panels = editor.run_panels
    panels.data_dir = panels.history.data_dir = own_service.data_dir
    editor.resize(1280, 800)
    editor.show()
    qtbot.waitExposed(editor)
    yield editor

    async def let_go() -> None:
        for feed in (panels.feed, panels.runs_feed):
            if feed is not None:
                await feed.aclose()

    qloop.run_until_complete(let_go())


def test_a_stalled_run_of_another_client_is_in_the_inbox_and_opens_its_run(
        window, qloop, qtbot, until, own_service) -> None:
    inbox = window.run_panels.approvals

    async def stall() -> str:
        async with own_service.info.client() as client:
            run_id = (await client.create_run(workflow=document_data(loads_workflow(LOOP))))
            await until(lambda: any(k.startswith(f"stall:{run_id['id']}:")
                                    for k in inbox.waiting()), 60)
            return run_id["id"]

    run_id = qloop.run_until_complete(stall())
    row = next(r for r in inbox.row_texts() if "Stalled: " in r)
    assert row.startswith("A: Stalled: the same ")  # why, in the banner's words
    assert inbox.count() >= 1 and f"({inbox.count()})" in inbox.badge.text()
    key = next(k for k in inbox.waiting() if k.startswith("stall:"))
    with qtbot.waitSignal(inbox.runRequested) as asked:
        assert inbox.open_request(key) is None  # nothing to decide here: its run comes up
    assert asked.args == [run_id, "", False]

    async def stop() -> None:
        async with own_service.info.client() as client:
            await client.patch_run(run_id, status="stopped")
        await until(lambda: not inbox.waiting(), 60)

    qloop.run_until_complete(stop())
    assert not any("Stalled: " in r for r in inbox.row_texts())


def test_a_run_of_another_client_waiting_for_step_is_in_the_inbox_until_it_moves(
        window, qloop, until, own_service) -> None:
    """An INTERACTIVE run whose tab was closed waits for Step: the inbox says so."""
    inbox = window.run_panels.approvals

    async def waits() -> str:
        async with own_service.info.client() as client:
            run = await client.create_run(workflow=document_data(loads_workflow(LOOP)),
                                          mode="INTERACTIVE")
            await until(lambda: any(k.startswith(f"step:{run['id']}:")
                                    for k in inbox.waiting()), 60)
            return run["id"]

    run_id = qloop.run_until_complete(waits())
    row = next(r for r in inbox.row_texts() if "Waiting for Step: " in r)
    assert row.startswith("A: Waiting for Step: 1 item queued for 1 node")

    async def stop() -> None:
        async with own_service.info.client() as client:
            await client.patch_run(run_id, status="stopped")
        await until(lambda: not inbox.waiting(), 60)

    qloop.run_until_complete(stop())
    assert not any("Waiting for Step: " in r for r in inbox.row_texts())


def test_a_run_waiting_for_step_inside_a_subflow_is_in_the_inbox(
        window, qloop, until, own_service) -> None:
    """The next turn is the subflow's inner Reviewer while the Review node runs its inside:
    the run still waits on you, and the inbox and its badge say so."""
    inbox = window.run_panels.approvals
    example = Path(__file__).resolve().parents[3] / "resources" / "examples" / \
        "subflow-review.flow.yaml"

    async def waits_inside() -> str:
        async with own_service.info.client() as client:
            run = await client.create_run(workflow_path=str(example), mode="INTERACTIVE")
            for node in ("Writer", "Review"):
                await until(lambda node=node: any(r.startswith(f"{node}: Waiting for Step: ")
                                                  for r in inbox.row_texts()), 60)
                await client.step(run["id"])
            await until(lambda: any(r.startswith("Reviewer: Waiting for Step: ")
                                    for r in inbox.row_texts()), 60)
            return run["id"]

    run_id = qloop.run_until_complete(waits_inside())
    assert f"({inbox.count()})" in inbox.badge.text() and inbox.count() >= 1

    async def stop() -> None:
        async with own_service.info.client() as client:
            await client.patch_run(run_id, status="stopped")
        await until(lambda: not inbox.waiting(), 60)

    qloop.run_until_complete(stop())


def test_the_stall_banner_is_as_tall_as_its_repeated_outputs(qtbot) -> None:
    from desktop.ui.run.stall_banner import SAMPLE_LINES, StallBanner

    banner = StallBanner()
    qtbot.addWidget(banner)
    long = "\n".join(f"line {i}" for i in range(40))
    banner.show_stall({"type": "run.stalled", "nodeId": "a", "reason": "output",
                       "evidence": {"signal": "output", "count": 2, "threshold": 2,
                                    "outputs": ["same again", long]}})
    short_box, long_box = (banner.samples.itemAt(i).widget().layout().itemAt(1).widget()
                           for i in range(2))
    line = short_box.fontMetrics().lineSpacing()
    assert short_box.maximumHeight() < 3 * line  # one line of output: one line of box
    assert SAMPLE_LINES * line <= long_box.maximumHeight() < (SAMPLE_LINES + 2) * line
