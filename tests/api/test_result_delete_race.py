"""Deleting a run while its result is applied, or while it is forked: the delete waits for
the other to finish, then takes everything away; nothing is written into the run's folder
once it is gone, nothing answers 500, and the user's repository keeps their work.

The apply (the fork) is held on its worker thread until the delete has either finished
(as it did before deletes waited) or is waiting for the run's lock, so the interleaving
is the one that matters, without a timer deciding it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from api_helpers import Api, within
from test_result_api import finished_run, git, project

from desktop.api import forks, results


class WatchedLock(asyncio.Lock):
    """A run lock that notes when someone has to wait for it."""

    def __init__(self) -> None:
        super().__init__()
        self.waited = threading.Event()

    async def acquire(self) -> bool:
        if self.locked():
            self.waited.set()
        return await super().acquire()


def held(real: Callable[..., Any]) -> tuple[Callable[..., Any], threading.Event,
                                            threading.Event]:
    """``real``, made to wait on its worker thread until released; the wrapper, the event
    set when it is entered, and the one that releases it."""
    entered, release = threading.Event(), threading.Event()

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        assert release.wait(60), "never released"
        return real(*args, **kwargs)

    return wrapper, entered, release


async def answer(api: Api, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """The status and JSON body of one request."""
    async with api.client.request(method, path, json=body) as response:
        return response.status, await response.json()


async def delete_meanwhile(api: Api, run_id: str, lock: WatchedLock, entered: threading.Event,
                           release: threading.Event, first: asyncio.Task[tuple[int, Any]]
                           ) -> tuple[tuple[int, Any], tuple[int, Any]]:
    """DELETE the run once ``first`` is held; release it when the delete is done or waits.
    Both answers."""
    await asyncio.to_thread(entered.wait, 60)
    deleting = asyncio.ensure_future(answer(api, "DELETE", f"/api/runs/{run_id}"))
    await within(60, lambda: deleting.done() or lock.waited.is_set(),
                 "the delete neither finished nor waited for the run")
    release.set()
    return await first, await deleting


async def test_a_delete_waits_for_an_apply_and_nothing_is_left_of_the_run(
        api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    lock = api.service._run_locks[run_id] = WatchedLock()
    wrapper, entered, release = held(results.apply_result)
    monkeypatch.setattr(results, "apply_result", wrapper)
    applying = asyncio.ensure_future(answer(api, "POST", f"/api/runs/{run_id}/apply",
                                            {"branch": "agent/result"}))
    (applied, applied_body), (deleted, deleted_body) = await delete_meanwhile(
        api, run_id, lock, entered, release, applying)

    assert (applied, deleted) == (200, 200), (applied_body, deleted_body)
    assert applied_body["applied"] and applied_body["branch"] == "agent/result"
    assert not (api.data / "runs" / run_id).exists()  # no applied.json written after it
    assert git(repo, "branch", "--list", "agent/result")  # what the user asked for stays
    assert git(repo, "branch", "--list", f"canvas/{run_id[:8]}/*") == ""
    assert (repo / "lib.txt").read_text() == "committed\nwork in progress\n"
    assert (repo / "notes.txt").read_text() == "untracked\n"
    gone = await api.json("POST", f"/api/runs/{run_id}/apply", 404, {"branch": "again"})
    assert gone["error"]["field"] == "runId"


async def test_a_delete_waits_for_a_fork_of_the_run_which_is_whole(
        api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    lock = api.service._run_locks[run_id] = WatchedLock()
    wrapper, entered, release = held(forks.prepare_fork)
    monkeypatch.setattr(forks, "prepare_fork", wrapper)
    forking = asyncio.ensure_future(answer(api, "POST", f"/api/runs/{run_id}/fork",
                                           {"at": 1, "start": False}))
    (forked, fork_body), (deleted, deleted_body) = await delete_meanwhile(
        api, run_id, lock, entered, release, forking)

    assert (forked, deleted) == (201, 200), (fork_body, deleted_body)
    assert not (api.data / "runs" / run_id).exists()
    fork_id = fork_body["run"]["id"]
    state = await api.run_state(fork_id)  # the fork's folder is whole and readable
    assert state["status"] == "paused"
    assert (repo / "lib.txt").read_text() == "committed\nwork in progress\n"
