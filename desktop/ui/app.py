"""Start the desktop application: Qt and the run engine on one asyncio loop (qasync)."""

import asyncio
import sys

from PySide6.QtWidgets import QApplication

from desktop import __version__
from desktop.ui.loop import new_event_loop
from desktop.ui.startup import open_editor


def application() -> QApplication:
    """The process's QApplication, created on first use."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Agent Canvas")
        app.setApplicationVersion(__version__)
        app.setOrganizationName("agent-canvas")
    return app  # type: ignore[return-value]


def run_app(path: str | None) -> int:
    """Open the main window (on ``path`` when given) and run until the last one closes.

    The engine runs in this process on the same loop as the widgets, so no thread
    ever touches a widget.
    """
    app = application()
    loop = new_event_loop(app)
    asyncio.set_event_loop(loop)
    closed = asyncio.Event()
    app.lastWindowClosed.connect(closed.set)
    with loop:
        open_editor(path)  # the window keeps itself alive (EditorWindow registry)
        loop.run_until_complete(closed.wait())
    return 0
