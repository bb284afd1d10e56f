"""The banner shown when nothing runs the open run: its service went away, the run was
interrupted before the window opened it, or it was left paused (the terminal's input ran
out while it waited). Its button starts the service and resumes the run. It also says
when the open run was deleted (no button then: there is nothing left to resume)."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from desktop.ui import theme as themes
from desktop.ui.theme import Theme


class ServiceBanner(QFrame):
    """"The service stopped" with a button that restarts it and resumes the run."""

    restartRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serviceBanner")
        self.theme = themes.current()
        self.tone = "lost"
        """lost: nothing runs the run (warns); paused: it waits to be resumed (informs);
        deleted: the run is gone (informs)."""
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.heading = "Not running."
        self.action = "&Restart service and resume"
        self.restart = QPushButton(self.action)
        self.restart.clicked.connect(self._restart)
        row = QHBoxLayout(self)
        row.addWidget(self.title, 1)
        row.addWidget(self.restart)
        self.hide()

    def show_lost(self, message: str) -> None:
        """Say that the service is gone and why."""
        self._show("Not running.", message, "&Restart service and resume", "lost")

    def show_paused(self, message: str) -> None:
        """Say that the run is paused, what it waits for, and offer to resume it."""
        self._show("Paused.", message, "&Resume", "paused")

    def show_deleted(self, message: str) -> None:
        """Say that the open run was deleted; nothing is offered (nothing is left)."""
        self._show("Deleted.", message, self.action, "deleted")
        self.restart.hide()

    def set_theme(self, theme: Theme) -> None:
        """Colour the banner in ``theme`` (it may be on show)."""
        self.theme = theme
        self._colour()

    def _colour(self) -> None:
        t = self.theme
        fill, edge = ((t.diff_chg, t.error) if self.tone == "lost"
                      else (t.diff_hunk, t.accent))
        self.setStyleSheet(f"#serviceBanner {{ background: {fill}; border: 1px solid {edge}; }}"
                           f" #serviceBanner QLabel {{ color: {t.text}; }}")

    def _show(self, heading: str, message: str, action: str, tone: str) -> None:
        self.heading, self.action, self.tone = heading, action, tone
        self._colour()
        self.title.setText(f"<b>{heading}</b> {escape(message, quote=False)}")
        self.restart.setEnabled(True)
        self.restart.setText(action)
        self.restart.show()
        self.show()

    def _restart(self) -> None:
        self.restart.setEnabled(False)
        self.restart.setText("Resuming…" if self.heading == "Paused." else "Restarting…")
        self.restartRequested.emit()

    def restart_failed(self, message: str) -> None:
        """The restart did not work: say why and offer it again."""
        self.title.setText(f"<b>{self.heading}</b> {escape(message, quote=False)}")
        self.restart.setEnabled(True)
        self.restart.setText(self.action)
