"""The service's engines on a loop of their own (as ``serve`` runs them): a run's engine
works on that loop, its events reach the stream's clients on the server's loop, a
request cancelled by its client cancels its work there, and closing the loop ends its
thread."""

from __future__ import annotations

import asyncio
import threading

import pytest
from api_helpers import Api, slow

from desktop.api.engine_loop import EngineLoop
from desktop.api.routes import ENGINES


@pytest.mark.parametrize("api", ["engine loop"], indirect=True)
async def test_a_run_works_on_the_engine_loop_and_streams_on_the_servers(api: Api) -> None:
    assert api.client.app is not None
    engines = api.client.app[ENGINES]
    assert isinstance(engines, EngineLoop)
    run_id = (await api.start(slow(30)))["id"]
    hosted = api.service.hosted[run_id]
    assert hosted.task is not None and hosted.task.get_loop() is engines.loop
    assert engines.loop is not asyncio.get_running_loop()
    async with api.client.ws_connect(f"/api/runs/{run_id}/stream") as ws:
        frame = await asyncio.wait_for(ws.receive_json(), 30)
        assert frame and frame[0]["seq"] == 1  # sent by this loop, from the log and live
    await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    await api.finished(run_id)


async def test_a_cancelled_request_cancels_its_work_on_the_engine_loop() -> None:
    engines = EngineLoop()
    started, cancelled = threading.Event(), threading.Event()

    async def work() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    request = asyncio.ensure_future(engines.run(work()))
    await asyncio.to_thread(started.wait, 30)
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request
    assert await asyncio.to_thread(cancelled.wait, 30)
    assert await engines.call(lambda: threading.current_thread().name) == "engines"
    engines.close()
    assert engines.loop.is_closed()
    assert "engines" not in {thread.name for thread in threading.enumerate()}
