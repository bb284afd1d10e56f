"""The REST handlers, and the one table of routes both the router and OpenAPI use."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
from aiohttp import web
from pydantic import BaseModel, ValidationError

from desktop import __version__
from desktop.api import artifacts, forks, results
from desktop.api.api_error import ApiError
from desktop.api.body_json import decode_body
from desktop.api.connections import DRAIN_TIMEOUT
from desktop.api.engine_loop import Runs
from desktop.api.errors import from_validation
from desktop.api.media_type import check_json_body
from desktop.api.runs import RunService
from desktop.contract import api as m
from desktop.contract import client_origin as origin
from desktop.contract.state import RunState
from desktop.runtime import control as c

SERVICE: web.AppKey[RunService] = web.AppKey("service", RunService)
ENGINES: web.AppKey[Runs] = web.AppKey("engines", object)
Model = TypeVar("Model", bound=BaseModel)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(body), status=status, content_type="application/json")


async def parse(request: web.Request, model: type[Model]) -> Model:
    """The request body as ``model``: 415 unless it is declared JSON, 400 for bad JSON
    (a key given twice among it), 422 naming the first bad field."""
    raw = await request.read()
    check_json_body(request.headers.get("Content-Type"), raw)
    data: Any = decode_body(raw) if raw.strip() else {}
    if not isinstance(data, dict):
        raise ApiError(422, "invalid_body", "the body must be a JSON object")
    try:
        # strict, as JSON: true is not a number and "1" not an integer (pydantic's lax mode
        # would take both), while an enum still takes its value's string. The JSON is the
        # value read above, written again: the same numbers (an integer beyond 64 bits
        # read as a float) wherever the body is validated and later written
        return model.model_validate_json(orjson.dumps(data), strict=True)
    except ValidationError as exc:
        raise from_validation(exc) from None


_FLAGS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
MAX_QUERY_INT = 2**53 - 1
"""The largest integer a query may carry: every JSON reader holds it exactly."""


_INTEGER = re.compile(r"-?[0-9]+")
"""A query integer: ASCII digits, one optional minus sign."""


def one_query(request: web.Request, name: str) -> str | None:
    """Query parameter ``name`` (None when absent); 422 naming it when given more than once,
    as ``?force=true&force=false`` says nothing the service may pick from."""
    values = request.query.getall(name, [])
    if len(values) > 1:
        raise ApiError(422, "invalid_query", f"{name} is given {len(values)} times; give it "
                       "once", name)
    return values[0] if values else None


def int_query(request: web.Request, name: str, default: int | None, low: int,
              high: int = MAX_QUERY_INT) -> int | None:
    """Query parameter ``name`` as an integer in [low, high]; 422 naming it otherwise."""
    raw = one_query(request, name)
    if raw is None:
        return default
    if len(raw) > 20 or not _INTEGER.fullmatch(raw):
        raise ApiError(422, "invalid_query", f"{name} must be an integer", name)
    value = int(raw)
    if not low <= value <= high:
        raise ApiError(422, "invalid_query", f"{name} must be between {low} and {high}", name)
    return value


def _service(request: web.Request) -> RunService:
    return request.app[SERVICE]


def _engines(request: web.Request) -> Runs:
    """Where the service's work is done: its engines' loop (desktop/api/engine_loop.py)."""
    return request.app[ENGINES]


def _run_id(request: web.Request) -> str:
    return request.match_info["run_id"]


# --- runs -------------------------------------------------------------------------------


async def create_run(request: web.Request) -> web.Response:
    body = await parse(request, m.CreateRun)
    return _json(await _engines(request).run(_service(request).create(body)), status=201)


async def warm_pool(request: web.Request) -> web.Response:
    body = await parse(request, m.WarmPool)
    warming = await _engines(request).run(_service(request).pool.warm(body))
    return _json(warming.to_json_dict(), status=202)


async def list_runs(request: web.Request) -> web.Response:
    answer = await _engines(request).run(_service(request).run_list())
    # no-cache: a client may keep the list but asks each time; the ETag makes that a 304
    headers = {"ETag": answer.etag, "Cache-Control": "no-cache"}
    sent = _etags(request.headers.get("If-None-Match", ""))
    if answer.etag in sent or "*" in sent:
        return web.Response(status=304, headers=headers)
    return web.Response(body=answer.body, content_type="application/json", headers=headers)


def _etags(header: str) -> set[str]:
    """The entity tags of an If-None-Match header (RFC 9110 13.1.2; weak ones match too)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",")} if header else set()


async def get_run(request: web.Request) -> web.Response:
    return _json(await _engines(request).run(_service(request).state(_run_id(request))))


async def patch_run(request: web.Request) -> web.Response:
    body = await parse(request, m.PatchRun)
    return _json(await _engines(request).run(_service(request).patch(_run_id(request), body)))


async def delete_run(request: web.Request) -> web.Response:
    given = one_query(request, "force")
    raw = "false" if given is None else given.lower()
    if raw not in _FLAGS:
        raise ApiError(422, "invalid_query", "force must be true or false", "force")
    force = _FLAGS[raw]
    deleted = await _engines(request).run(_service(request).delete(_run_id(request), force))
    return _json(deleted.to_json())


async def run_events(request: web.Request) -> web.Response:
    limit = int_query(request, "limit", 100, 1, m.MAX_PAGE)
    before = int_query(request, "before", None, 1)
    after = int_query(request, "after", None, 0)
    work = _service(request).events(_run_id(request), limit or 100, before, after)
    page = await _engines(request).run(work)
    info = m.PageInfo(nextCursor=page.next_cursor, hasMore=page.has_more)
    return _json({"events": page.events, "page": info.to_json_dict()})


async def fork_run(request: web.Request) -> web.Response:
    body = await parse(request, m.ForkRun)
    work = forks.fork(_service(request), _run_id(request), body)
    return _json(await _engines(request).run(work), status=201)


async def fork_points(request: web.Request) -> web.Response:
    at = int_query(request, "at", None, 1)
    work = forks.fork_points(_service(request), _run_id(request), at)
    return _json(await _engines(request).run(work))


async def run_result(request: web.Request) -> web.Response:
    return _json(await _engines(request).run(results.result(_service(request), _run_id(request))))


async def run_result_diff(request: web.Request) -> web.Response:
    path = one_query(request, "path")
    work = results.result_diff(_service(request), _run_id(request), path)
    return _json(await _engines(request).run(work))


async def run_artifact(request: web.Request) -> web.Response:
    artifact_id = request.match_info["artifact_id"]
    work = artifacts.artifact(_service(request), _run_id(request), artifact_id)
    return _json(await _engines(request).run(work))


async def apply_result(request: web.Request) -> web.Response:
    body = await parse(request, m.ApplyResult)
    work = results.apply(_service(request), _run_id(request), body)
    return _json(await _engines(request).run(work))


async def undo_apply(request: web.Request) -> web.Response:
    body = await parse(request, m.UndoApply)
    work = results.undo(_service(request), _run_id(request), body)
    return _json(await _engines(request).run(work))


async def pull_request(request: web.Request) -> web.Response:
    body = await parse(request, m.OpenPullRequest)
    work = results.pull_request(_service(request), _run_id(request), body)
    return _json(await _engines(request).run(work),
                 status=201)


# --- turns ------------------------------------------------------------------------------


async def chat(request: web.Request) -> web.Response:
    body = await parse(request, m.ChatRequest)
    work = _service(request).execute(_run_id(request), body.command())
    outcome = await _engines(request).run(work)
    return _json({"nodeId": outcome.node_id}, status=202)


async def step(request: web.Request) -> web.Response:
    body = await parse(request, m.StepRequest)
    work = _service(request).execute(_run_id(request), body.command())
    outcome = await _engines(request).run(work)
    return _json({"nodeId": outcome.node_id}, status=202)


async def set_budget(request: web.Request) -> web.Response:
    body = await parse(request, m.SetBudgetRequest)
    work = _service(request).execute(_run_id(request), body.command())
    outcome = await _engines(request).run(work)
    return _json({"nodeId": outcome.node_id, "budget": outcome.budget})


async def edit_inbox(request: web.Request) -> web.Response:
    body = await parse(request, m.EditInbox)
    command = body.command(item_id=request.match_info["item_id"])
    outcome = await _engines(request).run(_service(request).execute(_run_id(request), command))
    return _json({"nodeId": outcome.node_id})


# --- approvals --------------------------------------------------------------------------


async def list_approvals(request: web.Request) -> web.Response:
    approvals = await _engines(request).call(_service(request).approvals)
    return _json({"approvals": approvals})


async def resolve_approval(request: web.Request) -> web.Response:
    body = await parse(request, m.ResolveApproval)
    approval_id = request.match_info["approval_id"]
    try:  # the person decided in the app, the terminal, or through the API
        by = origin.decider(request.headers.get(origin.HEADER))
    except ValueError as exc:
        raise ApiError(422, "invalid_client", str(exc)) from None
    command = dataclasses.replace(body.command(approval_id=approval_id), by=by)
    work = _service(request).resolve(command)
    run_id, outcome = await _engines(request).run(work)
    resolution = outcome.resolution.to_json_dict() if outcome.resolution else {}
    return _json({"approvalId": approval_id, "runId": run_id, "resolution": resolution})


# --- graph changes ----------------------------------------------------------------------


async def add_node(request: web.Request) -> web.Response:
    body = await parse(request, m.AddNode)
    work = _service(request).execute(_run_id(request), body.command())
    outcome = await _engines(request).run(work)
    return _json(outcome.created, status=201)


async def patch_node(request: web.Request) -> web.Response:
    body = await parse(request, m.PatchNode)
    command = body.command(node_id=request.match_info["node_id"])
    outcome = await _engines(request).run(_service(request).execute(_run_id(request), command))
    return _json({"nodeId": outcome.node_id})


async def delete_node(request: web.Request) -> web.Response:
    work = _service(request).execute(_run_id(request), c.DeleteNode(request.match_info["node_id"]))
    await _engines(request).run(work)
    return web.Response(status=204)


async def add_edge(request: web.Request) -> web.Response:
    body = await parse(request, m.AddEdge)
    work = _service(request).execute(_run_id(request), body.command())
    outcome = await _engines(request).run(work)
    return _json(outcome.created, status=201)


async def delete_edge(request: web.Request) -> web.Response:
    work = _service(request).execute(_run_id(request), c.DeleteEdge(request.match_info["edge_id"]))
    await _engines(request).run(work)
    return web.Response(status=204)


# --- service ----------------------------------------------------------------------------


async def health(request: web.Request) -> web.Response:
    live = await _engines(request).call(lambda: _service(request).live_count)
    body = m.Health(version=__version__, pid=os.getpid(), runs=live)
    return _json(body.to_json_dict())


async def openapi(request: web.Request) -> web.Response:
    from desktop.api.openapi import document

    return _json(document(ROUTES))


# --- the table --------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    """One endpoint: how it is routed and how OpenAPI describes it."""

    method: str
    path: str
    handler: Handler
    summary: str
    body: type[BaseModel] | None = None
    response: type[BaseModel] | None = None
    status: int = 200
    query: tuple[str, ...] = ()
    errors: tuple[int, ...] = ()
    etag: bool = False
    """The answer carries an ETag, and If-None-Match naming it gets a 304."""


RUN = "/api/runs/{run_id}"
ROUTES: tuple[Route, ...] = (
    Route("POST", "/api/runs", create_run, "Start a run of a workflow file or document",
          m.CreateRun, RunState, 201, errors=(400, 403, 413, 422)),
    Route("GET", "/api/runs", list_runs, "Every run, newest first", response=m.RunList,
          etag=True),
    Route("GET", RUN, get_run, "A run's state", response=RunState, errors=(404,)),
    Route("PATCH", RUN, patch_run, "Pause, resume (taking the run over), stop, switch modes",
          m.PatchRun, RunState, errors=(400, 404, 409, 422)),
    Route("DELETE", RUN, delete_run, "Remove a run's folder, worktrees and branches (a live "
          "one with ?force=true); what went. A run with a worktree the user locked (git "
          "worktree lock) is refused with nothing changed (409 worktree_locked, the locked "
          "worktrees in error.problems), and so is one whose worktrees hold work made after "
          "it ended, an edit or a commit (of a live one: in an idle node's worktree) (409 "
          "worktree_changed, those worktrees in error.problems)", response=m.RunDeletedOut,
          query=("force",), errors=(404, 409, 422)),
    Route("GET", RUN + "/events", run_events, "A page of the run's events (offset index)",
          response=m.EventPage, query=("limit", "before", "after"), errors=(404, 422)),
    Route("POST", RUN + "/fork", fork_run, "Continue the run from a point between turns as "
          "a new run, with edits", m.ForkRun, m.ForkCreated, 201,
          errors=(400, 404, 409, 413, 422)),
    Route("GET", RUN + "/fork-points", fork_points, "The points the run can be forked from, "
          "and where ?at= lands (409 when the run has no point to fork from, or at is past "
          "the end of a run no engine holds)", response=m.ForkPoints, query=("at",),
          errors=(404, 409, 422)),
    Route("GET", RUN + "/result", run_result, "The run's result branch and the files it "
          "changes against the run's base", response=m.RunResultOut, errors=(404, 409)),
    Route("GET", RUN + "/result/diff", run_result_diff, "One changed file's diff against the "
          "run's base", response=m.ResultDiffOut, query=("path",), errors=(404, 409, 422)),
    Route("GET", RUN + "/artifacts/{artifact_id}", run_artifact, "One artifact of the run "
          "(a turn's diff, an agent's output) with its file's text, by the id its "
          "artifact.created event gives", response=m.ArtifactOut, errors=(404,)),
    Route("POST", RUN + "/apply", apply_result, "Apply the result (or the accepted files) "
          "onto the user's working tree by a three-way merge, or as a new branch; a "
          "collision changes nothing (409, the files in error.problems), and so does a "
          "repository in the middle of a rebase or merge, or whose index a git command "
          "holds when it goes onto the working tree (409 repository_busy); a branch name "
          "git refuses, taken, or clashing with another as file and folder is 422 "
          "invalid_branch; an apply while another apply of the run is under way, through "
          "this service or in a terminal, is 409 apply_busy", m.ApplyResult,
          m.ApplyOutcomeOut, errors=(400, 404, 409, 413, 422)),
    Route("POST", RUN + "/apply/undo", undo_apply, "Undo the latest application of the "
          "result to the user's working tree (a three-way merge back to the state before "
          "it): an edit made since that collides changes nothing (409 undo_collides, the "
          "files in error.problems); none to undo is 409 nothing_to_undo; a repository "
          "mid-operation 409 repository_busy, an apply under way 409 apply_busy",
          m.UndoApply, m.ApplyOutcomeOut, errors=(400, 404, 409, 413, 422)),
    Route("POST", RUN + "/pull-request", pull_request, "Push a branch made by apply and open "
          "a pull request of it with gh", m.OpenPullRequest, m.PullRequestOut, 201,
          errors=(400, 404, 409, 422)),
    Route("POST", RUN + "/chat", chat, "Send a message to a node", m.ChatRequest, m.NodeRef,
          202, errors=(400, 404, 409, 422)),
    Route("POST", RUN + "/step", step, "INTERACTIVE: start the next (or a node's) turn",
          m.StepRequest, m.NodeRef, 202, errors=(400, 404, 409, 422)),
    Route("PATCH", RUN + "/budget", set_budget, "Raise (or change) the run's budget or a "
          "node's; resume goes on after run.budget_exceeded; answers the budget in force",
          m.SetBudgetRequest, m.BudgetSet, errors=(400, 404, 409, 422)),
    Route("POST", RUN + "/inbox/{item_id}", edit_inbox, "Change a queued inbox item",
          m.EditInbox, m.NodeRef, errors=(400, 404, 409, 422)),
    Route("POST", RUN + "/nodes", add_node, "Add a node to a live run", m.AddNode,
          m.NodeCreated, 201, errors=(400, 404, 409, 422)),
    Route("PATCH", RUN + "/nodes/{node_id}", patch_node, "Change a node's label or config",
          m.PatchNode, m.NodeRef, errors=(400, 404, 409, 422)),
    Route("DELETE", RUN + "/nodes/{node_id}", delete_node, "Remove a node (and its edges)",
          status=204, errors=(404, 409)),
    Route("POST", RUN + "/edges", add_edge, "Add an edge to a live run", m.AddEdge,
          m.EdgeCreated, 201, errors=(400, 404, 409, 422)),
    Route("DELETE", RUN + "/edges/{edge_id}", delete_edge, "Remove an edge", status=204,
          errors=(404, 409)),
    Route("POST", "/api/worktree-pool/warm", warm_pool, "Make spare worktrees ahead of a "
          "workflow's first run, in the background", m.WarmPool, m.PoolWarming, 202,
          errors=(400, 413, 422, 503)),
    Route("GET", "/api/approvals", list_approvals, "Pending approvals of every live run",
          response=m.ApprovalList),
    Route("POST", "/api/approvals/{approval_id}/resolve", resolve_approval,
          "Approve, deny or modify a gated tool call; approve a merge (a side per file, "
          "edited contents, or the agent) or deny it", m.ResolveApproval, m.Resolved,
          errors=(400, 404, 409, 422)),
    Route("GET", "/api/health", health, "Liveness, version and live run count",
          response=m.Health),
    Route("GET", "/api/openapi.json", openapi, "This document"),
)

STREAM_DOC: dict[str, Any] = {
    "summary": "WebSocket: the run's events (catch-up after `after`, then live)",
    "operationId": "stream",
    "description": "Upgrade to a WebSocket. Text frames are JSON arrays of events in seq "
                   "order, first those with seq > after from the log, then live ones; never "
                   "a gap or a duplicate. The token may be passed as ?token=. Close codes: "
                   "4004 unknown run, 4008 client too slow (reconnect with after=<last seq>), "
                   "1001 service shutting down, 1002 a client frame that is not masked "
                   f"(RFC 6455 5.1). A client that reads nothing for {DRAIN_TIMEOUT:g} s once "
                   "its stream "
                   "has ended (or once it half-closed) is cut off, its close frame unsent.",
    "parameters": [
        {"name": "runId", "in": "path", "required": True, "schema": {"type": "string"}},
        {"name": "after", "in": "query", "required": False,
         "schema": {"type": "integer", "minimum": 0, "maximum": 2**53 - 1}},
        {"name": "token", "in": "query", "required": False, "schema": {"type": "string"}},
    ],
    "responses": {"101": {"description": "switching to the WebSocket protocol"},
                  "400": {"description": "not a WebSocket upgrade"},
                  "401": {"description": "missing or wrong token"},
                  "403": {"description": "Host or Origin not allowed"},
                  "422": {"description": "after is not an integer of at least 0, or is "
                                         "given twice"},
                  "426": {"description": "a WebSocket version other than 13: the answer's "
                                         "Sec-WebSocket-Version header names 13"},
                  "503": {"description": "the service holds as many connections as it "
                                         "serves at once; try again in a moment"}},
}
