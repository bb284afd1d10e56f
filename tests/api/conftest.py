"""An in-process service per test (aiohttp test server on a free loopback port)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from api_helpers import AUTH, TOKEN, Api

from desktop.api.app import create_app
from desktop.api.paths import AllowedRoots
from desktop.api.runs import RunService
from desktop.graph.resources import examples_dir


def make_api_parts(tmp_path: Path, queue_limit: int | None = None
                   ) -> tuple[RunService, TestClient, Path, Path]:
    data, flows = tmp_path / "data", tmp_path / "flows"
    data.mkdir()
    flows.mkdir()
    service = RunService(data, AllowedRoots([data, flows, examples_dir()], flows))
    kwargs = {"queue_limit": queue_limit} if queue_limit else {}
    app = create_app(service, TOKEN, **kwargs)
    client = TestClient(TestServer(app), headers=AUTH)
    return service, client, data, flows


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    service, client, data, flows = make_api_parts(tmp_path)
    await client.start_server()
    try:
        yield Api(client, service, data, flows)
    finally:
        await service.shutdown()
        await client.close()
