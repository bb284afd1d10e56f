"""An async client of the local service (REST + WebSocket), used by the GUI and the CLI.

Every method mirrors one endpoint of the API (see the README's API section) and
returns the decoded JSON body. The run commands go through :meth:`ApiClient.send`,
which builds each request from the command's definition (desktop/contract/commands.py).
Failures raise :class:`ApiError` with the service's error code and message; a service
that can not be reached raises :class:`ServiceUnavailable` (a subclass), so callers can
tell "the service said no" from "the service is gone".
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import aiohttp
import orjson

from desktop.api.api_error import ApiError
from desktop.api.client_errors import ServiceUnavailable
from desktop.contract import client_origin as origin
from desktop.contract.commands import (
    AddEdge,
    AddNode,
    Chat,
    Command,
    DeleteEdge,
    DeleteNode,
    EditInbox,
    PatchNode,
    Resolve,
    RunStatusIn,
    SetBudget,
    Step,
)
from desktop.contract.enums import EdgeType
from desktop.contract.wire import request_of

# A batch of events can be large (a replayed backlog); the service caps single
# events, not batches, so the client accepts big frames.
MAX_FRAME = 256 * 1024 * 1024
# WebSocket close codes the service uses (API.md)
CLOSE_UNKNOWN_RUN = 4004
CLOSE_TOO_SLOW = 4008
CLOSE_GOING_AWAY = 1001
# the connection dropped without a close frame (aiohttp reports 1006) or the service went away
CLOSE_LOST = frozenset({None, CLOSE_GOING_AWAY, 1006})


def _reason(exc: BaseException) -> str:
    """Why the service could not be reached, in a few words."""
    if isinstance(exc, aiohttp.ClientConnectorError):
        return "nothing answers there"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "the connection was cut"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    return str(exc) or type(exc).__name__


def _error_from(status: int, body: bytes) -> ApiError:
    """The :class:`ApiError` of an error response (tolerates a body that is not ours)."""
    try:
        payload = orjson.loads(body) if body else {}
    except orjson.JSONDecodeError:
        payload = {}
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        field = error.get("field")
        problems = error.get("problems")
        listed = [str(p) for p in problems] if isinstance(problems, list) else None
        return ApiError(status, str(error.get("code") or "error"), error["message"],
                        field if isinstance(field, str) else None, listed)
    text = body[:200].decode("utf-8", "replace").strip() if body else ""
    return ApiError(status, "http_error", f"the service answered HTTP {status}"
                    + (f": {text}" if text else ""))


def _batch(data: str | bytes) -> list[dict[str, Any]]:
    """The events of one stream frame: a JSON array of objects, each with an int ``seq``."""
    try:
        events = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ApiError(0, "bad_frame", f"the event stream sent invalid JSON: {exc}") from None
    if not isinstance(events, list) or not all(
            isinstance(e, dict) and isinstance(e.get("seq"), int) for e in events):
        raise ApiError(0, "bad_frame", "the event stream sent a frame that is not a list "
                       "of events with a seq")
    return events


class ApiClient:
    """One connection pool to the service at ``url`` (``http://127.0.0.1:PORT``)."""

    def __init__(self, url: str, token: str, *, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self._timeout = aiohttp.ClientTimeout(total=timeout, sock_connect=5)
        self._session: aiohttp.ClientSession | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            headers = {"Authorization": f"Bearer {self.token}"}
            declared = origin.declared()
            if declared is not None:  # where a person's decisions come from
                headers[origin.HEADER] = declared
            self._session = aiohttp.ClientSession(
                headers=headers, timeout=self._timeout,
                json_serialize=lambda obj: orjson.dumps(obj).decode())
        return self._session

    async def close(self) -> None:
        """Close the connection pool (the client can be used again afterwards)."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    # --- plumbing --------------------------------------------------------------------------

    async def request(self, method: str, path: str, *, json: Any = None,
                      params: dict[str, Any] | None = None) -> Any:
        """Send one request; the decoded body (None for 204)."""
        query = {k: str(v).lower() if isinstance(v, bool) else str(v)
                 for k, v in (params or {}).items() if v is not None}
        # a stream, not bytes: aiohttp warns of raw bodies over 1 MiB (a big workflow)
        body = None if json is None else io.BytesIO(orjson.dumps(json))
        headers = None if body is None else {"Content-Type": "application/json"}
        try:
            async with self._http().request(method, self.url + path, data=body,
                                            headers=headers, params=query or None) as resp:
                body = await resp.read()
                if resp.status >= 400:
                    raise _error_from(resp.status, body)
        except (aiohttp.ClientConnectionError, TimeoutError) as exc:
            raise ServiceUnavailable(self.url, _reason(exc)) from None
        if resp.status == 204 or not body:
            return None
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            raise ApiError(resp.status, "bad_response",
                           f"the service sent a body that is not JSON for {method} {path}"
                           ) from None

    # --- runs ------------------------------------------------------------------------------

    async def health(self) -> dict:
        """``GET /api/health``: ``{"ok", "version", "pid", "runs"}``."""
        return await self.request("GET", "/api/health")

    async def create_run(self, *, workflow: dict | None = None, workflow_path: str | None = None,
                         mode: str | None = None, global_mode: str | None = None) -> dict:
        """Start a run; its state.

        ``workflow`` alone: a document. ``workflow_path`` alone: a file the service reads.
        Both: the document, with the path recorded as where it lives (relative node
        workspaces resolve against its folder; the file is not read).
        """
        body: dict[str, Any] = {}
        if workflow is not None:
            body["workflow"] = workflow
        if workflow_path is not None:
            body["workflowPath"] = workflow_path
        if mode:
            body["mode"] = mode.upper()
        if global_mode:
            body["globalMode"] = global_mode.upper()
        return await self.request("POST", "/api/runs", json=body)

    async def list_runs(self) -> list[dict]:
        """Every run the service knows, newest first."""
        return (await self.request("GET", "/api/runs"))["runs"]

    async def list_runs_since(self, etag: str | None) -> tuple[list[dict] | None, str | None]:
        """The run list unless it is still the one ``etag`` names: ``(runs, its ETag)``,
        or ``(None, etag)`` when unchanged (a 304, no body sent)."""
        headers = {"If-None-Match": etag} if etag else None
        try:
            async with self._http().get(self.url + "/api/runs", headers=headers) as resp:
                body = await resp.read()
                if resp.status == 304:
                    return None, etag
                if resp.status >= 400:
                    raise _error_from(resp.status, body)
                tag = resp.headers.get("ETag")
        except (aiohttp.ClientConnectionError, TimeoutError) as exc:
            raise ServiceUnavailable(self.url, _reason(exc)) from None
        try:
            return orjson.loads(body)["runs"], tag
        except (orjson.JSONDecodeError, KeyError, TypeError):
            raise ApiError(resp.status, "bad_response",
                           "the service sent a run list that is not one") from None

    async def get_run(self, run_id: str) -> dict:
        """The run's state (camelCase RunState)."""
        return await self.request("GET", f"/api/runs/{quote(run_id)}")

    async def patch_run(self, run_id: str, *, status: RunStatusIn | None = None,
                        mode: str | None = None, global_mode: str | None = None) -> dict:
        """Pause / resume / stop (``status``) or switch modes; the new state."""
        body = {k: v for k, v in (("status", status), ("mode", mode),
                                  ("globalMode", global_mode)) if v is not None}
        return await self.request("PATCH", f"/api/runs/{quote(run_id)}", json=body)

    async def warm_pool(self, workflow: dict, workflow_path: str | None = None) -> dict:
        """Have spare worktrees made ahead of a run of ``workflow`` (a document; its
        file's absolute path for relative workspaces): ``{"repositories": [...]}``."""
        body: dict = {"workflow": workflow}
        if workflow_path is not None:
            body["workflowPath"] = workflow_path
        return await self.request("POST", "/api/worktree-pool/warm", json=body)

    async def delete_run(self, run_id: str, *, force: bool = False) -> dict:
        """Remove the run's folder, worktrees and branches (``force`` stops a live run
        first); what went (``RunDeletedOut``: runId, folder, pooled, removed, refsDeleted,
        kept, undoLost)."""
        return await self.request("DELETE", f"/api/runs/{quote(run_id)}",
                                  params={"force": True} if force else None)

    async def events(self, run_id: str, *, limit: int | None = None, before: int | None = None,
                     after: int | None = None) -> dict:
        """One page of the run's events: ``{"events", "page": {"nextCursor", "hasMore"}}``."""
        return await self.request("GET", f"/api/runs/{quote(run_id)}/events",
                                  params={"limit": limit, "before": before, "after": after})

    async def fork(self, run_id: str, at: int, *, nodes: list[dict] | None = None,
                   items: list[dict] | None = None, mode: str | None = None,
                   global_mode: str | None = None, start: bool = True) -> dict:
        """Continue ``run_id`` from event ``at`` (snapped between turns) as a new run.

        ``nodes``: ``[{"node", "instructions"?, "model"?, "provider"?}]``; ``items``:
        ``[{"itemId", "text"}]``. Returns ``{"run", "seq", "requestedSeq", "point",
        "workspaces"}``.
        """
        body: dict[str, Any] = {"at": at, "nodes": nodes or [], "items": items or [],
                                "start": start}
        if mode:
            body["mode"] = mode.upper()
        if global_mode:
            body["globalMode"] = global_mode.upper()
        return await self.request("POST", f"/api/runs/{quote(run_id)}/fork", json=body)

    async def fork_points(self, run_id: str, at: int | None = None) -> dict:
        """Where the run can be forked: ``{"points": [...], "snap"?}``."""
        return await self.request("GET", f"/api/runs/{quote(run_id)}/fork-points",
                                  params={"at": at})

    async def result(self, run_id: str) -> dict:
        """The run's result branch, its changed files and its applications."""
        return await self.request("GET", f"/api/runs/{quote(run_id)}/result")

    async def result_diff(self, run_id: str, path: str) -> str:
        """One changed file's unified diff against the run's base."""
        body = await self.request("GET", f"/api/runs/{quote(run_id)}/result/diff",
                                  params={"path": path})
        return str(body["patch"])

    async def artifact(self, run_id: str, artifact_id: str) -> dict:
        """Artifact ``artifact_id`` of the run with its file's ``text`` (cut at 8 MiB, then
        ``truncated`` is set)."""
        return await self.request(
            "GET", f"/api/runs/{quote(run_id)}/artifacts/{quote(artifact_id, safe='')}")

    async def apply(self, run_id: str, *, files: list[str] | None = None,
                    branch: str | None = None, check: bool = False,
                    allow_secrets: bool = False) -> dict:
        """Apply the run's result (``files``: the accepted ones) to the working tree, or
        as new branch ``branch``; ApiError 409 with the colliding files in ``problems``
        (apply_collides), or the files that hold a secret value (result_has_secrets,
        unless ``allow_secrets``)."""
        body: dict[str, Any] = {"check": check}
        if allow_secrets:
            body["allowSecrets"] = True
        if files is not None:
            body["files"] = files
        if branch is not None:  # an empty name is the service's to refuse, not "no branch"
            body["branch"] = branch
        return await self.request("POST", f"/api/runs/{quote(run_id)}/apply", json=body)

    async def undo_apply(self, run_id: str, *, check: bool = False) -> dict:
        """Undo the latest application of the run's result to the working tree; ApiError
        409 undo_collides with the colliding files in ``problems``."""
        return await self.request("POST", f"/api/runs/{quote(run_id)}/apply/undo",
                                  json={"check": check})

    async def pull_request(self, run_id: str, branch: str, title: str | None = None) -> dict:
        """Push ``branch`` and open a pull request of it: ``{"url", "remote"}``."""
        body: dict[str, Any] = {"branch": branch}
        if title:
            body["title"] = title
        return await self.request("POST", f"/api/runs/{quote(run_id)}/pull-request", json=body)

    # --- commands --------------------------------------------------------------------------

    async def send(self, run_id: str | None, command: Command) -> Any:
        """Carry out ``command`` (desktop/contract/commands.py) on run ``run_id`` (None for
        a :class:`Resolve`, which names its approval); the decoded answer.

        The request comes from the command's own definition (its endpoint, and each
        field where its annotation says it travels), so it carries exactly what the
        service's request body takes; a field the service sets itself (``Resolve.by``)
        is a ValueError here, not a 422 there.
        """
        method, path, body = request_of(command, run_id)
        # a DELETE carries everything in its path; the others always send their object
        json = body if body or method != "DELETE" else None
        return await self.request(method, path, json=json)

    # One method per command, each the command's fields in order (the run's id first); a
    # test holds them to the dataclasses (tests/contract/test_commands_defined_once.py).

    async def step(self, run_id: str, node: str | None = None) -> dict:
        """INTERACTIVE: start the next turn (or ``node``'s); ``{"nodeId"}``."""
        return await self.send(run_id, Step(node))

    async def chat(self, run_id: str, node: str, text: str) -> dict:
        """Send ``text`` to a node as the user; ``{"nodeId"}``."""
        return await self.send(run_id, Chat(node, text))

    async def set_budget(self, run_id: str, node: str | None = None,
                         max_tokens: int | None = None, max_cost_usd: float | None = None,
                         max_wall_sec: float | None = None) -> dict:
        """Change the run's budget (or ``node``'s) limits; ``{"nodeId"}`` (null: the run)."""
        return await self.send(run_id, SetBudget(node, max_tokens, max_cost_usd,
                                                 max_wall_sec))

    async def edit_inbox(self, run_id: str, node: str, item_id: str, text: str,
                         structured: dict[str, Any] | None = None) -> dict:
        """Change a queued inbox item of ``node`` before its turn (INTERACTIVE)."""
        return await self.send(run_id, EditInbox(node, item_id, text, structured))

    async def add_node(self, run_id: str, key: str, label: str | None = None,
                       role_template: str | None = None, provider: str | None = None,
                       config: dict[str, Any] | None = None,
                       capabilities: dict[str, Any] | None = None,
                       permissions: dict[str, Any] | None = None,
                       connect_from: str | None = None) -> dict:
        """Add a node to a live run; ``{"nodeId", "key", "edgeId"?}``."""
        return await self.send(run_id, AddNode(key, label, role_template, provider,
                                               config or {}, capabilities, permissions,
                                               connect_from))

    async def patch_node(self, run_id: str, node: str, label: str | None = None,
                         config: dict[str, Any] | None = None) -> dict:
        """Change a node's label or config (e.g. ``config={"instructions": ...}``)."""
        return await self.send(run_id, PatchNode(node, label, config))

    async def delete_node(self, run_id: str, node: str) -> None:
        """Remove a node from a live run."""
        await self.send(run_id, DeleteNode(node))

    async def add_edge(self, run_id: str, source: str, target: str,
                       type: str = EdgeType.HANDOFF.value, label: str | None = None,
                       bidirectional: bool = False) -> dict:
        """Add an edge to a live run; ``{"edgeId", "from", "to"}``."""
        return await self.send(run_id, AddEdge(source, target, type, label, bidirectional))

    async def delete_edge(self, run_id: str, edge_id: str) -> None:
        """Remove an edge from a live run."""
        await self.send(run_id, DeleteEdge(edge_id))

    async def approvals(self) -> list[dict]:
        """Pending approvals across runs."""
        return (await self.request("GET", "/api/approvals"))["approvals"]

    async def resolve(self, approval: str, status: str,
                      modified_args: dict[str, Any] | None = None, reason: str | None = None,
                      merge: dict[str, Any] | None = None,
                      choice: int | None = None) -> dict:
        """Approve, deny or modify a pending tool call, decide a merge (``merge``: a
        side per file, contents, or the agent), or pick the attempt that goes on
        (``choice``); 409 when already decided. The service records the user as who
        decided."""
        return await self.send(None, Resolve(approval, status, modified_args, reason,
                                             merge=merge, choice=choice))

    # --- events ----------------------------------------------------------------------------

    async def stream(self, run_id: str, after: int = 0) -> AsyncIterator[list[dict[str, Any]]]:
        """Batches of the run's events with seq > ``after``, then live ones, over one socket.

        Ends when the service closes the socket (e.g. a slow client, code 4008); the
        caller reconnects with the last seq it saw. Raises :class:`ApiError` (404) for
        an unknown run and :class:`ServiceUnavailable` when the service can not be
        reached or the connection breaks.
        """
        url = f"{self.url}/api/runs/{quote(run_id)}/stream"
        try:
            async with self._http().ws_connect(url, params={"after": str(after)},
                                               max_msg_size=MAX_FRAME) as ws:
                async for msg in ws:
                    if msg.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                        batch = _batch(msg.data)
                        if batch:
                            yield batch
                    elif msg.type == aiohttp.WSMsgType.ERROR:
                        raise ServiceUnavailable(self.url, str(ws.exception() or "socket error"))
                code = ws.close_code
        except aiohttp.WSServerHandshakeError as exc:
            raise ApiError(exc.status, "stream_refused",
                           f"the service refused the event stream of run {run_id} "
                           f"(HTTP {exc.status})") from None
        except (aiohttp.ClientConnectionError, TimeoutError) as exc:
            raise ServiceUnavailable(self.url, _reason(exc)) from None
        if code == CLOSE_UNKNOWN_RUN:
            raise ApiError(404, "run_not_found", f"the service has no run {run_id}")
        if code in CLOSE_LOST:
            raise ServiceUnavailable(self.url, "the event stream was cut"
                                     if code != CLOSE_GOING_AWAY else "the service shut down")
