"""A run's result through the service: ``GET /api/runs/{id}/result`` (and one file's diff),
``POST .../apply``, ``POST .../apply/undo`` and ``POST .../pull-request``.

The git work runs on a worker thread. An apply of a run an engine is still working on
(queued or running) is refused with 409 run_working: its branches are still moving.
Each holds the run's lock (``RunService.lock``), as deleting it does: a result is never
read or applied while the run's branches and folder are being taken away, and an
application is never recorded in a folder that is gone. An apply while another apply
of the same run is under way, here or in a terminal, is refused (409 apply_busy).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from desktop.api.api_error import ApiError
from desktop.api.runs import RunService
from desktop.contract.api import ApplyResult, OpenPullRequest, UndoApply
from desktop.contract.enums import RUN_WORKING
from desktop.runtime.apply_lock import ApplyBusy, ApplyLockUnusable
from desktop.runtime.branch_name import BadBranchName
from desktop.runtime.git_run import GitError
from desktop.runtime.repo_busy import RepoBusy
from desktop.runtime.result_apply import apply_result
from desktop.runtime.result_pr import made_branches, open_pull_request, pull_request_blocker
from desktop.runtime.result_undo import NothingToUndo, undo_apply
from desktop.runtime.run_result import (
    ResultError,
    RunPlace,
    RunResult,
    RunWorking,
    file_patch,
    find_place,
    find_result,
    working_refusal,
)
from desktop.views.secret_words import files_of

Found = TypeVar("Found", RunResult, RunPlace)


async def _result(service: RunService, run_id: str,
                  find: Callable[[Path], Found] = find_result) -> Found:
    folder = service.run_dir(run_id)
    try:
        return await asyncio.to_thread(find, folder)
    except ResultError as exc:
        raise ApiError(409, "no_result", str(exc)) from None
    except GitError as exc:
        raise ApiError(409, "git_failed", str(exc)) from None


async def _settled(service: RunService, run_id: str) -> None:
    """409 run_working while an engine works on the run, as the service sees it now (a
    run it hosts may be ahead of its folder); apply_result asks the folder again."""
    state = await service.state(run_id)
    status = state.get("status")
    # a run that says running while no engine holds it (interrupted) moves no branch
    if status in RUN_WORKING and not state.get("interrupted"):
        raise ApiError(409, "run_working", working_refusal(run_id, str(status)))


async def result(service: RunService, run_id: str) -> dict[str, Any]:
    """The run's result branch, its changed files and its applications."""
    async with service.lock(run_id):
        found = await _result(service, run_id)
    blocker = await asyncio.to_thread(pull_request_blocker, found.repo)
    return {**found.to_json(), "pullRequest": blocker}


async def result_diff(service: RunService, run_id: str, path: str | None) -> dict[str, Any]:
    """One changed file's diff against the run's base."""
    if not path:
        raise ApiError(422, "invalid_query", "give the file as ?path=", "path")
    async with service.lock(run_id):
        found = await _result(service, run_id)
        try:
            patch = await asyncio.to_thread(file_patch, found, path)
        except ResultError as exc:
            raise ApiError(422, "invalid_query", str(exc), "path") from None
    return {"path": path, "patch": patch}


def _refused(exc: Exception) -> ApiError:
    """The 409 for what stops an application (or its undo) whatever the request said."""
    if isinstance(exc, RepoBusy):  # the repository's state, not the request, is at fault
        return ApiError(409, "repository_busy", str(exc))
    if isinstance(exc, ApplyBusy):  # a terminal's `runs apply`, or another request
        return ApiError(409, "apply_busy", str(exc))
    if isinstance(exc, ApplyLockUnusable):  # the run folder's state, not the request's
        return ApiError(409, "run_folder_unusable", str(exc))
    return ApiError(409, "git_failed", str(exc))


async def apply(service: RunService, run_id: str, body: ApplyResult) -> dict[str, Any]:
    """Apply the run's result; 409 naming the files when it collides (nothing changed)."""
    async with service.lock(run_id):
        return await _apply(service, run_id, body)


async def _apply(service: RunService, run_id: str, body: ApplyResult) -> dict[str, Any]:
    await _settled(service, run_id)
    found = await _result(service, run_id)
    try:
        outcome = await asyncio.to_thread(apply_result, found, files=body.files,
                                          branch=body.branch, check=body.check,
                                          allow_secrets=body.allow_secrets)
    except (RepoBusy, ApplyBusy, ApplyLockUnusable, GitError) as exc:
        raise _refused(exc) from None
    except BadBranchName as exc:
        raise ApiError(422, "invalid_branch", str(exc), "branch") from None
    except RunWorking as exc:  # it started working again since _settled looked
        raise ApiError(409, "run_working", str(exc)) from None
    except ResultError as exc:
        raise ApiError(422, "invalid_apply", str(exc), "files") from None
    finally:
        service.index.touched(run_id)  # applied.json may have a new record
    if outcome.collisions:
        raise ApiError(409, "apply_collides", outcome.message + ": "
                       + ", ".join(outcome.collisions), "files", problems=outcome.collisions)
    if outcome.secrets:  # the message names each file and secret; problems, the files
        raise ApiError(409, "result_has_secrets", outcome.message, "allowSecrets",
                       problems=files_of(outcome.secrets))
    return outcome.to_json()


async def undo(service: RunService, run_id: str, body: UndoApply) -> dict[str, Any]:
    """Undo the latest application to the working tree; 409 naming the files when an
    edit made since collides (nothing changed)."""
    async with service.lock(run_id):
        found = await _result(service, run_id, find_place)
        try:
            outcome = await asyncio.to_thread(undo_apply, found, check=body.check)
        except (RepoBusy, ApplyBusy, ApplyLockUnusable, GitError) as exc:
            raise _refused(exc) from None
        except NothingToUndo as exc:
            raise ApiError(409, "nothing_to_undo", str(exc)) from None
        except ResultError as exc:  # the state before it is gone
            raise ApiError(409, "undo_unavailable", str(exc)) from None
        finally:
            service.index.touched(run_id)
    if outcome.collisions:
        raise ApiError(409, "undo_collides", outcome.message + ": "
                       + ", ".join(outcome.collisions), "files", problems=outcome.collisions)
    return outcome.to_json()


async def pull_request(service: RunService, run_id: str,
                       body: OpenPullRequest) -> dict[str, Any]:
    """Push the branch and open a pull request of it with gh."""
    async with service.lock(run_id):
        found = await _result(service, run_id)
        made = await asyncio.to_thread(made_branches, found)
    # the push and gh go over the network for as long as they take: the run's lock is not
    # held meanwhile, as they touch the user's branch, not the run's folder or branches
    try:
        url, remote = await asyncio.to_thread(open_pull_request, found, body.branch,
                                              body.title, made)
    except BadBranchName as exc:
        raise ApiError(422, "invalid_branch", str(exc), "branch") from None
    except ResultError as exc:
        raise ApiError(409, "pull_request_failed", str(exc), "branch") from None
    return {"url": url, "remote": remote}
