"""The smallest window the run panels attach to, shared by the tests that attach them."""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QMainWindow, QVBoxLayout, QWidget

from desktop.ui.run.window_parts import WindowParts


class Window(QMainWindow):
    """The smallest window the panels attach to: a document and a central layout."""

    def __init__(self, doc) -> None:
        super().__init__()
        central = QWidget()
        QVBoxLayout(central)
        self.setCentralWidget(central)
        self.parts = WindowParts(document=lambda: doc, workflow_path=lambda: doc.source)


def end_session(loop: asyncio.AbstractEventLoop, panels) -> None:
    """Let a run still starting settle, then close the panels' session (before pytest-qt
    closes the window they are attached to)."""
    if panels._starting is not None:
        loop.run_until_complete(asyncio.gather(panels._starting, return_exceptions=True))
    if panels.session is not None:
        loop.run_until_complete(panels.session.close())
        panels.session = None
