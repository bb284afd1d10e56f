"""Fixtures for the run panels: a qasync loop shared by Qt and the engine."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
import qasync


@pytest.fixture
def qloop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync event loop on the test's QApplication (the app's own arrangement)."""
    loop = qasync.QEventLoop(qapp, already_running=False)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
        asyncio.set_event_loop(None)


async def wait_until(pred: Callable[[], bool], timeout: float = 30.0) -> None:
    """Let the loop run until ``pred()`` holds (fails the test after ``timeout``)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


@pytest.fixture
def until() -> Callable[..., object]:
    """``await until(pred)``: run the loop until ``pred()`` holds."""
    return wait_until
