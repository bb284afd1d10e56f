"""An in-process service per test (aiohttp test server on a free loopback port), its
engines on a loop of their own as ``serve`` has them, and on the server's loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from api_helpers import QUICK_CLOSE, Api, make_api_parts

from desktop.api.connections import Limits
from desktop.api.engine_loop import SAME_LOOP, EngineLoop


@pytest.fixture(params=["engine loop", "one loop"])
async def api(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Api]:
    engines = EngineLoop() if request.param == "engine loop" else SAME_LOOP
    service, client, data, flows = make_api_parts(
        tmp_path, engines=engines, limits=Limits(close_timeout=QUICK_CLOSE))
    await client.start_server()
    try:
        yield Api(client, service, data, flows)
    finally:
        await engines.run(service.shutdown())
        await client.close()
        if isinstance(engines, EngineLoop):
            engines.close()
