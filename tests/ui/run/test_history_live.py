"""Run history is a live view (issue 28): a run another client starts shows up, its
status follows the run, a live run's duration counts up, and the finished run is no
longer marked live, all without Refresh."""

from __future__ import annotations

import asyncio

import pytest
from run_flows import gated

from desktop.graph.io import document_data, loads_workflow
from desktop.graph.resources import examples_dir
from desktop.ui.run.history import COLUMNS
from desktop.ui.window import EditorWindow
from desktop.ui.window_questions import Questions

GATED = gated("echo history-follows")
SINGLE = examples_dir() / "single-agent.flow.yaml"


@pytest.fixture
def window(qloop, qtbot, own_service, monkeypatch, tmp_path):
    monkeypatch.setattr(Questions, "save_changes", lambda self: "discard")
    monkeypatch.setattr(Questions, "live_run", lambda self: "keep")
    path = tmp_path / "gated.flow.yaml"
    path.write_text(GATED)
    editor = EditorWindow(str(path))
    qtbot.addWidget(editor)
    panels = editor.run_panels
    panels.data_dir = panels.history.data_dir = own_service.data_dir
    editor.resize(1280, 800)
    editor.show()
    qtbot.waitExposed(editor)
    panels.docks["history"].raise_()  # the history shows: its feed asks the service
    yield editor, path

    async def let_go() -> None:
        for feed in (panels.feed, panels.runs_feed):
            if feed is not None:
                await feed.aclose()

    qloop.run_until_complete(let_go())


def _cell(history, run_id: str, column: str) -> str | None:
    for r, row in enumerate(history.rows):
        if row.run_id == run_id:
            return history.table.item(r, COLUMNS.index(column)).text()
    return None


def test_the_history_follows_a_run_another_client_started_to_its_end(
        window, qloop, until, own_service) -> None:
    editor, _path = window
    history = editor.run_panels.history

    async def go() -> tuple[str, str]:
        async with own_service.info.client() as client:
            doc = document_data(loads_workflow(GATED))
            run_id = (await client.create_run(workflow=doc))["id"]
            await until(lambda: _cell(history, run_id, "Status") == "running · live", 30)
            first = _cell(history, run_id, "Duration")
            # waiting on a person, the run writes nothing: its duration still counts up
            await until(lambda: _cell(history, run_id, "Duration") != first, 30)
            for _ in range(600):
                if (asked := await client.approvals()):
                    break
                await asyncio.sleep(0.05)
            await client.resolve(asked[0]["approvalId"], "approved")
            await until(lambda: _cell(history, run_id, "Status") == "completed", 60)
            return run_id, first

    run_id, first = qloop.run_until_complete(go())
    row = next(r for r in history.rows if r.run_id == run_id)
    assert not row.live and row.events > 0 and first is not None
    assert _cell(history, run_id, "Workflow") == "Gated"



def test_the_service_s_rows_and_the_folders_rows_say_the_same(qloop, own_service) -> None:
    from dataclasses import astuple

    from desktop.ui.run.history import load_history, rows_from_service

    async def go() -> list[dict]:
        async with own_service.info.client() as client:
            doc = document_data(loads_workflow(SINGLE.read_text()))
            for _ in range(2):
                run_id = (await client.create_run(workflow=doc))["id"]
                for _ in range(1200):
                    if (await client.get_run(run_id))["status"] == "completed":
                        break
                    await asyncio.sleep(0.05)
            await client.fork(run_id, at=3, start=False)
            return await client.list_runs()

    runs = qloop.run_until_complete(go())
    listed = rows_from_service(runs, own_service.data_dir)
    folders = load_history(own_service.data_dir)
    assert len(listed) == 3 and any(row.forked_from for row in listed)
    assert [astuple(row) for row in listed] == [astuple(row) for row in folders]


def test_refresh_asks_the_service_instead_of_reading_every_folder(window, qloop, until,
                                                                    own_service,
                                                                    monkeypatch) -> None:
    from desktop.ui.run import history as history_module

    editor, _path = window
    history = editor.run_panels.history

    async def go() -> str:
        async with own_service.info.client() as client:
            doc = document_data(loads_workflow(SINGLE.read_text()))
            run_id = (await client.create_run(workflow=doc))["id"]
            await until(lambda: _cell(history, run_id, "Status") == "completed", 60)
            return run_id

    run_id = qloop.run_until_complete(go())
    read: list[object] = []
    monkeypatch.setattr(history_module, "load_history",
                        lambda folder: read.append(folder) or [])
    history.show_rows([])

    async def back() -> None:
        history.refresh()  # as the Refresh button does, on the window's running loop
        await until(lambda: _cell(history, run_id, "Status") == "completed", 30)

    qloop.run_until_complete(back())
    assert read == []  # the window never waited on a read of every run folder
