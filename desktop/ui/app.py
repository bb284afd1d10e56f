"""Start the desktop application."""

import sys

from PySide6.QtWidgets import QApplication

from desktop import __version__
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
    """Open the main window (on ``path`` when given) and run until it closes."""
    app = application()
    open_editor(path)  # the window keeps itself alive (EditorWindow registry)
    return int(app.exec())
