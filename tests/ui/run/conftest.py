"""Fixtures for the run panels: a qasync loop shared by Qt and the engine."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtWidgets import QMainWindow, QVBoxLayout, QWidget

from desktop.ui.loop import new_event_loop
from desktop.ui.run.attach import attach_run_panels


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


class Window(QMainWindow):
    """The smallest window the panels attach to: a document and a central layout."""

    def __init__(self, doc) -> None:
        super().__init__()
        central = QWidget()
        QVBoxLayout(central)
        self.setCentralWidget(central)

        class _Model:
            def snapshot(self):
                return doc

        class _Editor:
            model = _Model()

        self.editor = _Editor()


@pytest.fixture
def window_for(qloop, qtbot, tmp_path):
    """``window, panels = window_for(doc)``: a window with run panels over ``doc``."""
    made = []

    def make(doc):
        window = Window(doc)
        qtbot.addWidget(window)
        panels = attach_run_panels(window, tmp_path / "data")
        made.append(panels)
        return window, panels

    yield make
    for panels in made:
        if panels.session is not None:
            qloop.run_until_complete(panels.session.close())
