"""Fixtures for the run panels: the GUI's qasync loop and a real ``agent-canvas serve``.

The window is a client: runs go to the service (a subprocess started once per test
session on a free port; tests that need a folder of their own start their own).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
from panel_window import Window, end_session
from service_process import ServeProcess

from desktop.api.discovery import stop_spawned
from desktop.ui.loop import new_event_loop
from desktop.ui.run.attach import attach_run_panels


@pytest.fixture(scope="session")
def service(tmp_path_factory) -> Iterator[ServeProcess]:
    """One service for the session's GUI tests; SIGTERM at the end."""
    svc = ServeProcess(tmp_path_factory.mktemp("service"))
    yield svc
    svc.stop()


@pytest.fixture
def own_service(tmp_path) -> Iterator[ServeProcess]:
    """A service with a data folder of its own (tests that list runs or kill it)."""
    svc = ServeProcess(tmp_path / "own-service")
    yield svc
    svc.stop()


@pytest.fixture(autouse=True)
def _stop_restarted_services() -> Iterator[None]:
    """Services a test's window started (a restart after a kill) end with the test."""
    yield
    stop_spawned()


@pytest.fixture
def qloop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync event loop on the test's QApplication (the app's own arrangement)."""
    loop = new_event_loop(qapp)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
        asyncio.set_event_loop(None)


async def wait_until(pred: Callable[[], bool], timeout: float = 90.0) -> None:
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


@pytest.fixture
def window_for(qloop, qtbot, service):
    """``window, panels = window_for(doc)``: a window with run panels over ``doc``, a client
    of the session's service (or of the service of ``data_dir``)."""

    def detach(window) -> None:  # before pytest-qt closes and deletes the window
        end_session(qloop, window.run_panels)
        window.run_panels.release()

    def make(doc, data_dir=None):
        window = Window(doc)
        qtbot.addWidget(window, before_close_func=detach)
        panels = attach_run_panels(window, window.parts, data_dir or service.data_dir)
        return window, panels

    return make
