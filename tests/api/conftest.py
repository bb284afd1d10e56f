"""An in-process service per test (aiohttp test server on a free loopback port)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from api_helpers import Api, make_api_parts


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    service, client, data, flows = make_api_parts(tmp_path)
    await client.start_server()
    try:
        yield Api(client, service, data, flows)
    finally:
        await service.shutdown()
        await client.close()
