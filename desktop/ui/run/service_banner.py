"""The banner shown when nothing runs the open run: its service went away, or the run was
interrupted before the window opened it. Its button starts the service and resumes the run."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class ServiceBanner(QFrame):
    """"The service stopped" with a button that restarts it and resumes the run."""

    restartRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serviceBanner")
        self.setStyleSheet("#serviceBanner { background: #fdecea; border: 1px solid #eb5757; }")
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.restart = QPushButton("&Restart service and resume")
        self.restart.clicked.connect(self._restart)
        row = QHBoxLayout(self)
        row.addWidget(self.title, 1)
        row.addWidget(self.restart)
        self.hide()

    def show_lost(self, message: str) -> None:
        """Say that the service is gone and why."""
        self.title.setText(f"<b>Not running.</b> {message}")
        self.restart.setEnabled(True)
        self.restart.setText("&Restart service and resume")
        self.show()

    def _restart(self) -> None:
        self.restart.setEnabled(False)
        self.restart.setText("Restarting…")
        self.restartRequested.emit()

    def restart_failed(self, message: str) -> None:
        """The restart did not work: say why and offer it again."""
        self.title.setText(f"<b>Not running.</b> {message}")
        self.restart.setEnabled(True)
        self.restart.setText("&Restart service and resume")
