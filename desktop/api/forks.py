"""Forks through the service: ``POST /api/runs/{id}/fork`` and ``GET .../fork-points``.

The file work of a fork (copying the log prefix and agent folders, replaying diffs with
git) runs on a worker thread; the fork's engine is opened on the loop and hosted like
any run the service created, so it streams and takes commands at once. The source's
lock (``RunService.lock``) is held while its folder is read, so deleting the source waits
for the fork to be made rather than taking the folder away mid-copy.
"""

from __future__ import annotations

import asyncio
from typing import Any

from desktop.api.api_error import ApiError
from desktop.api.runs import RunService
from desktop.contract.api import ForkPointOut, ForkRun
from desktop.runtime.engine import EngineError
from desktop.runtime.fork import (
    ForkError,
    ForkRequest,
    ItemEdit,
    NodeEdit,
    branches_json,
    open_fork,
    prepare_fork,
)
from desktop.store.runs import RunError
from desktop.views.forks import NoForkPoint, scan_run


def _api_error(exc: ForkError) -> ApiError:
    if exc.conflict:
        return ApiError(409, "fork_conflict", str(exc), exc.field)
    return ApiError(422, "invalid_fork", str(exc), exc.field)


async def fork(service: RunService, run_id: str, body: ForkRun) -> dict[str, Any]:
    """Make the fork of ``run_id`` the body asks for; host it unless ``start`` is false."""
    service.run_dir(run_id)  # 404 before anything else
    if service.closing:
        raise ApiError(503, "shutting_down", "the service is shutting down")
    request = ForkRequest(
        at=body.at, mode=body.mode, global_mode=body.global_mode,
        nodes=[NodeEdit(n.node, n.instructions, n.model, n.provider) for n in body.nodes],
        items=[ItemEdit(i.item_id, i.text) for i in body.items])
    async with service.lock(run_id):
        folder = service.run_dir(run_id)  # deleted while this waited: 404
        try:
            prepared = await asyncio.to_thread(prepare_fork, folder, service.data_dir, request)
            made = open_fork(prepared, service.options())
        except ForkError as exc:
            raise _api_error(exc) from None
        except (EngineError, RunError) as exc:
            raise ApiError(409, "fork_conflict", str(exc)) from None
    engine = made.engine
    if body.start:
        service.host(engine)
        state = engine.state.to_json_dict()
    else:
        engine.pause("forked; PATCH it with {\"status\": \"running\"} to run it")
        state = engine.state.to_json_dict()
        engine.close()
    plan = made.plan
    return {"run": state, "seq": plan.seq, "requestedSeq": body.at, "point": plan.snap.note,
            "workspaces": [{"path": str(w.path), "source": str(w.source), "diffs": w.diffs,
                            "skipped": w.skipped, "taken": w.taken} for w in made.workspaces],
            "branches": branches_json(made.git)}


async def fork_points(service: RunService, run_id: str, at: int | None) -> dict[str, Any]:
    """The run's fork points, and where ``at`` lands when given."""
    folder = service.run_dir(run_id)
    scan = await asyncio.to_thread(scan_run, folder)
    points = [ForkPointOut(seq=p.seq, nodeId=p.node_id, turn=p.turn, label=p.label,
                           description=scan.describe(p)).to_json_dict() for p in scan.points]
    body: dict[str, Any] = {"points": points}
    if at is not None:
        try:
            snap = scan.snap(at)
        except NoForkPoint as exc:
            raise ApiError(409, "fork_conflict", str(exc), "at") from None
        body["snap"] = {"requested": at, "seq": snap.point.seq, "note": snap.note}
    return body
