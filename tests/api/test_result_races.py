"""Deleting a run while its result is applied, or while it is forked, and applying it
twice at once: the second waits for the first to finish. A delete then takes everything
away and nothing is written into the run's folder once it is gone; a second apply finds
the result already there (or the branch taken) rather than colliding with the first;
nothing answers 500, and the user's repository keeps their work.

The first request is held on its worker thread until the second has either finished (as
it did before they waited) or is waiting for the run's lock, so the interleaving is the
one that matters, without a timer deciding it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from api_helpers import Api, within
from test_result_api import (
    finished_run,
    git,
    project,
    stand_in_gh,  # noqa: F401 (a fixture)
)

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
    """``real``, its first call made to wait on its worker thread until released; the
    wrapper, the event set when that call is entered, and the one that releases it."""
    entered, release = threading.Event(), threading.Event()

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not entered.is_set():
            entered.set()
            assert release.wait(60), "never released"
        return real(*args, **kwargs)

    return wrapper, entered, release


async def answer(api: Api, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """The status and JSON body of one request."""
    async with api.client.request(method, path, json=body) as response:
        return response.status, await response.json()


async def meanwhile(api: Api, lock: WatchedLock, entered: threading.Event,
                    release: threading.Event, first: asyncio.Future[tuple[int, Any]],
                    method: str, path: str, body: Any = None
                    ) -> tuple[tuple[int, Any], tuple[int, Any]]:
    """Send the second request once ``first`` is held; release it when the second is done
    or waits for the run's lock. Both answers."""
    await asyncio.to_thread(entered.wait, 60)
    second = asyncio.ensure_future(answer(api, method, path, body))
    await within(60, lambda: second.done() or lock.waited.is_set(),
                 "the second request neither finished nor waited for the run")
    release.set()
    return await first, await second


async def delete_meanwhile(api: Api, run_id: str, lock: WatchedLock, entered: threading.Event,
                           release: threading.Event, first: asyncio.Future[tuple[int, Any]]
                           ) -> tuple[tuple[int, Any], tuple[int, Any]]:
    """DELETE the run once ``first`` is held: both answers."""
    return await meanwhile(api, lock, entered, release, first, "DELETE", f"/api/runs/{run_id}")


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


@pytest.mark.parametrize("body", [{}, {"branch": "agent/result"}], ids=["tree", "branch"])
async def test_two_applies_at_once_are_one_after_the_other(
        api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: dict) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    lock = api.service._run_locks[run_id] = WatchedLock()
    wrapper, entered, release = held(results.apply_result)
    monkeypatch.setattr(results, "apply_result", wrapper)
    url = f"/api/runs/{run_id}/apply"
    first = asyncio.ensure_future(answer(api, "POST", url, body))
    (one, one_body), (two, two_body) = await meanwhile(api, lock, entered, release, first,
                                                       "POST", url, body)

    assert one == 200 and one_body["applied"], one_body
    if body:  # the same name again: taken, said as such
        assert two == 422 and "already exists" in two_body["error"]["message"], two_body
    else:  # the result is in the tree: nothing collides with it
        assert two == 200 and not two_body["applied"], two_body
        assert "already there" in two_body["message"]
    assert (repo / "lib.txt").read_text() == "committed\nwork in progress\n"
    applied = (await api.json("GET", f"/api/runs/{run_id}/result", 200))["applied"]
    assert len(applied) == 1


async def test_made_up_run_ids_leave_no_lock_and_a_deleted_run_takes_its_own(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    await api.json("GET", f"/api/runs/{run_id}/result", 200)
    assert set(api.service._run_locks) == {run_id}
    for n in range(50):
        made_up = f"00000000-0000-4000-8000-{n:012d}"
        for method, path, body in (("GET", "/result", None), ("GET", "/result/diff?path=a", None),
                                   ("POST", "/apply", {}), ("POST", "/fork", {"at": 1}),
                                   ("POST", "/pull-request", {"branch": "b"}),
                                   ("PATCH", "", {"status": "running"}), ("DELETE", "", None)):
            await api.json(method, f"/api/runs/{made_up}{path}", 404, body)
    assert set(api.service._run_locks) == {run_id}
    await api.json("DELETE", f"/api/runs/{run_id}", 200)
    assert api.service._run_locks == {}


async def test_a_delete_does_not_wait_for_a_pull_request_on_the_network(
        api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        stand_in_gh: Path) -> None:  # noqa: F811 (the fixture)
    repo = project(tmp_path)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    run_id = await finished_run(api, repo)
    await api.json("POST", f"/api/runs/{run_id}/apply", 200, {"branch": "agent/result"})
    wrapper, entered, release = held(results.open_pull_request)
    monkeypatch.setattr(results, "open_pull_request", wrapper)
    opening = asyncio.ensure_future(answer(api, "POST", f"/api/runs/{run_id}/pull-request",
                                           {"branch": "agent/result"}))
    try:
        await asyncio.to_thread(entered.wait, 60)  # the push has begun, and hangs
        deleting = asyncio.ensure_future(answer(api, "DELETE", f"/api/runs/{run_id}"))
        await within(30, deleting.done, "the delete waited for the pull request's push")
    finally:
        release.set()
    assert (await deleting)[0] == 200
    assert (await opening)[0] == 201  # the user's branch went on its way all the same
    assert git(remote, "rev-parse", "agent/result") == git(repo, "rev-parse", "agent/result")
