"""A run no engine of the service holds is folded from its folder on a worker thread: while
a long fold is under way the service answers other requests, and an unchanged run is not
folded again (a changed one is)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from desktop.api import folded
from desktop.contract.state import RunState
from tests.api.api_helpers import Api
from tests.api.test_run_index import append_usage, finished_runs


async def test_another_request_is_served_while_a_run_is_folded(
        api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    [run_id] = await finished_runs(api.data, 1)
    folding, done_folding = threading.Event(), threading.Event()
    order: list[str] = []
    real = folded.fold_run

    def long_fold(folder: Path) -> RunState:
        folding.set()
        # held until the other request is answered; the bound only ends the test when the
        # fold holds the loop, and then the order below fails it
        done_folding.wait(30)
        order.append("fold")
        return real(folder)

    monkeypatch.setattr(folded, "fold_run", long_fold)
    state = asyncio.ensure_future(api.json("GET", f"/api/runs/{run_id}", 200))
    await asyncio.to_thread(folding.wait, 30)
    await api.json("GET", f"/api/runs/{run_id}/events?limit=1", 200)
    order.append("other request")
    done_folding.set()
    assert (await state)["id"] == run_id
    assert order == ["other request", "fold"]


async def test_an_unchanged_run_is_folded_once(api: Api) -> None:
    [run_id] = await finished_runs(api.data, 1)
    first = await api.json("GET", f"/api/runs/{run_id}", 200)
    assert await api.json("GET", f"/api/runs/{run_id}", 200) == first
    assert api.service.folded.folds == 1
    append_usage(api.data, run_id, 1000)  # another process writes the log
    again = await api.json("GET", f"/api/runs/{run_id}", 200)
    assert api.service.folded.folds == 2 and again["lastSeq"] == first["lastSeq"] + 1
