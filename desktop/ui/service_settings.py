"""The Service part of Settings: this machine's service (the default), or another
machine's, reached through an SSH port forward, by its URL and token.

The URL is kept in the settings file; the token goes to the keyring (or, where no keyring
exists, is read from ``AGENT_CANVAS_SERVICE_TOKEN``) and never into a file or a widget
once saved. The README's "Attach to a service on another machine" says how to set it up.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
)

from desktop.api import remote
from desktop.ui.settings import service_url, set_service_url

TOKEN_PLACES = {"environment": f"Set in the environment ({remote.TOKEN_ENV}, used first)",
                "keyring": "In the keyring", None: "Not set"}


class ServiceGroup(QGroupBox):
    """Pick the service; Use saves the choice and calls ``on_change`` (the window attaches)."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        super().__init__("Service")
        self._on_change = on_change
        url = service_url()
        self.here = QRadioButton("This machine (default)")
        self.here.setObjectName("service_here")
        self.there = QRadioButton("Another machine:")
        self.there.setObjectName("service_there")
        self.choice = QButtonGroup(self)
        self.choice.addButton(self.here)
        self.choice.addButton(self.there)
        (self.there if url else self.here).setChecked(True)
        self.url = QLineEdit(url or "")
        self.url.setObjectName("service_url")
        self.url.setPlaceholderText("http://127.0.0.1:8765 (the forwarded port)")
        self.token = QLineEdit()
        self.token.setObjectName("service_token")
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token.setPlaceholderText("Paste the service's token")
        self.token_status = QLabel()
        self.token_status.setProperty("role", "muted")
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setProperty("role", "muted")
        self.error = QLabel()
        self.error.setProperty("role", "error")
        self.error.setWordWrap(True)
        self.error.hide()
        self.use = QPushButton("Use")
        self.use.setObjectName("service_use")
        self.use.clicked.connect(self.apply)
        grid = QGridLayout(self)
        grid.addWidget(self.here, 0, 0, 1, 3)
        grid.addWidget(self.there, 1, 0)
        grid.addWidget(QLabel("URL"), 1, 1)
        grid.addWidget(self.url, 1, 2)
        grid.addWidget(QLabel("Token"), 2, 1)
        grid.addWidget(self.token, 2, 2)
        grid.addWidget(self.token_status, 2, 3)
        grid.addWidget(self.use, 1, 3)
        grid.addWidget(self.note, 3, 0, 1, 4)
        grid.addWidget(self.error, 4, 0, 1, 4)
        grid.setColumnStretch(2, 1)
        self.choice.buttonToggled.connect(lambda *_: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        """Enable the fields for another machine, and say where the token is (never it)."""
        usable, backend = remote.keyring_usable()
        other = self.there.isChecked()
        self.url.setEnabled(other)
        self.token.setEnabled(other and usable)
        self.token_status.setText(TOKEN_PLACES[remote.token_source()])
        if usable:
            self.note.setText(f"The token is kept in your system keyring ({backend}), never "
                              "in a file; the URL is kept in the settings.")
        else:
            self.note.setText("No system keyring is available here, so the token cannot be "
                              f"stored: export {remote.TOKEN_ENV} before starting Agent "
                              "Canvas. It is never written to a file.")

    def apply(self) -> bool:
        """Save the choice (the URL to the settings, a pasted token to the keyring) and
        attach to that service; False, with the reason shown, when it cannot be used."""
        self.error.hide()
        if not self.there.isChecked():
            set_service_url(None)
            self._on_change()
            return True
        try:
            url = remote.check_url(self.url.text())
            if self.token.text().strip():
                remote.save_token(self.token.text())
            if remote.token_source() is None:
                raise remote.RemoteServiceError(
                    "paste the service's token (on the other machine: the token of its "
                    "server.json)")
        except (remote.RemoteServiceError, remote.TokenError) as exc:
            return self._fail(str(exc))
        finally:
            self.token.clear()  # the value lives in the keyring only, never in a widget
            self.refresh()
        self.url.setText(url)
        set_service_url(url)
        self._on_change()
        return True

    def _fail(self, message: str) -> bool:
        self.error.setText(message)
        self.error.show()
        return False
