"""Shared pieces of the service tests: an in-process service, workflows, polling."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from desktop.api.app import create_app
from desktop.api.connections import GuardedRunner, GuardedServer, Limits
from desktop.api.engine_loop import SAME_LOOP, Runs
from desktop.api.paths import AllowedRoots
from desktop.api.runs import RunService
from desktop.graph.resources import examples_dir

TOKEN = "test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TERMINAL = ("completed", "failed", "stopped")
EXAMPLE = "single-agent.flow.yaml"
GATED = {"cliPermissionsMode": "gated"}
QUICK_CLOSE = 0.5
"""Limits.close_timeout for tests whose stream clients answer a close at once or never:
the service's 5 s only makes them wait (tests/api/test_stream.py keeps one on it)."""


@dataclass
class Api:
    """An in-process service and a client holding its token."""

    client: TestClient
    service: RunService
    data: Path
    flows: Path

    async def json(self, method: str, path: str, status: int, body: Any = None,
                   **kwargs: Any) -> Any:
        """Call the API and check the status; the decoded JSON body (None for 204)."""
        if body is not None:
            kwargs["json"] = body
        response = await self.client.request(method, path, **kwargs)
        text = await response.text()
        assert response.status == status, f"{method} {path}: {response.status} {text}"
        assert "Traceback" not in text
        return await response.json() if text else None

    async def start(self, workflow: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return await self.json("POST", "/api/runs", 201, {"workflow": workflow, **extra})

    async def run_state(self, run_id: str) -> dict[str, Any]:
        return await self.json("GET", f"/api/runs/{run_id}", 200)

    async def until(self, run_id: str, predicate, timeout: float = 90.0) -> dict[str, Any]:
        """Poll the run's state until ``predicate(state)`` holds."""
        async def poll() -> dict[str, Any]:
            while True:
                state = await self.run_state(run_id)
                if predicate(state):
                    return state
                await asyncio.sleep(0.05)
        return await asyncio.wait_for(poll(), timeout)

    async def finished(self, run_id: str) -> dict[str, Any]:
        return await self.until(run_id, lambda s: s["status"] in TERMINAL
                                and run_id not in self.service.hosted)

    async def healthy(self) -> None:
        """The service still answers."""
        body = await self.json("GET", "/api/health", 200)
        assert body["ok"] is True


def workflow(nodes: dict[str, Any], edges: list[dict[str, Any]] | None = None,
             **extra: Any) -> dict[str, Any]:
    """A workflow document from ``{key: {script..., node fields...}}`` (first = entry)."""
    doc_nodes, configs = [], {}
    for i, (key, spec) in enumerate(nodes.items()):
        spec = dict(spec)
        node = {"id": key, "label": spec.pop("label", key.title()), "entry": i == 0,
                "provider": "scripted"}
        for field in ("capabilities", "permissions", "roleTemplate"):
            if field in spec:
                node[field] = spec.pop(field)
        doc_nodes.append(node)
        configs[key] = spec
    return {"name": "api test", "task": "do the thing", "nodes": doc_nodes,
            "nodeConfigs": configs, "edges": edges or [], **extra}


def gated_shell(cmd: str = "echo hi > out.txt") -> dict[str, Any]:
    """One node whose shell call waits for an approval."""
    return workflow({"a": {"script": [{"shell": cmd}, {"say": "finished"}],
                           "permissions": GATED}})


def slow(seconds: float = 30.0) -> dict[str, Any]:
    """One node that sleeps (a live run to steer)."""
    return workflow({"a": {"script": [{"say": "working"}, {"sleep": seconds},
                                      {"say": "done"}]}})


class ServiceTestServer(TestServer):
    """aiohttp's test server with the runner `serve` uses (the connection limits)."""

    async def _make_runner(self, **kwargs: Any) -> web.BaseRunner:
        # as `serve` runs it: a handler goes on when its client leaves (aiohttp's test
        # server would cancel it, which `serve` never does)
        kwargs["handler_cancellation"] = False
        return GuardedRunner(self.app, **kwargs)


def make_api_parts(tmp_path: Path, queue_limit: int | None = None,
                   limits: Limits | None = None, engines: Runs = SAME_LOOP
                   ) -> tuple[RunService, TestClient, Path, Path]:
    data, flows = tmp_path / "data", tmp_path / "flows"
    data.mkdir()
    flows.mkdir()
    service = RunService(data, AllowedRoots([data, flows, examples_dir()], flows))
    kwargs: dict[str, Any] = {"queue_limit": queue_limit} if queue_limit else {}
    app = create_app(service, TOKEN, limits=limits, engines=engines, **kwargs)
    client = TestClient(ServiceTestServer(app), headers=AUTH)
    return service, client, data, flows


@contextlib.asynccontextmanager
async def served(tmp_path: Path, **parts: Any) -> AsyncIterator[Api]:
    """A service serving on a test server for the block (``parts``: make_api_parts's
    queue_limit, limits, engines), shut down after it."""
    service, client, data, flows = make_api_parts(tmp_path, **parts)
    await client.start_server()
    try:
        yield Api(client, service, data, flows)
    finally:
        await service.shutdown()
        await client.close()


def guarded(api: Api) -> GuardedServer:
    """The service's connection-guarding server (its open connections, its limits)."""
    assert api.client.server.runner is not None
    server = api.client.server.runner.server
    assert isinstance(server, GuardedServer)
    return server


async def within(bound: float, predicate: Callable[[], bool], what: str) -> None:
    """Wait until ``predicate()`` holds; fail saying ``what`` did not happen in ``bound`` s."""
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.01)
    try:
        await asyncio.wait_for(poll(), bound)
    except TimeoutError:
        raise AssertionError(f"not within {bound} s: {what}") from None


async def small_buffer_socket(api: Api, receive_buffer: int) -> socket.socket:
    """A TCP socket connected to the service whose receive buffer is ``receive_buffer``
    bytes (set before connecting, where the kernel takes it), for a client that stops
    reading."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.setblocking(False)
    try:
        await asyncio.get_running_loop().sock_connect(sock, (api.client.host, api.client.port))
    except BaseException:
        sock.close()
        raise
    return sock
