"""Settings: the theme (follow the system, or always light or dark), which desktop
notifications to show, the service the GUI is a client of (this machine's, or another
machine's through an SSH port forward), and provider API keys.

Keys and the service's token go straight to the operating system's keyring
(desktop/disk/keychain.py); this dialog never shows a stored one and never writes one to
a file. Agents get keys by name (``ANTHROPIC_API_KEY``, ...) when their turn starts, as if
they had been exported. The service's URL is in the settings file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QStyle,
    QVBoxLayout,
)

from desktop.disk import keychain
from desktop.ui.dialog_size import keep_readable
from desktop.ui.run.notifier import app_notifier
from desktop.ui.service_settings import ServiceGroup
from desktop.ui.settings import nudge_kinds, set_nudge_kind
from desktop.views.nudges import KIND_TITLES, KINDS, NudgeKind

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow

THEMES = (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark"))
PROVIDER_TITLES = {"claude": "Claude Code", "codex": "Codex (OpenAI)", "gemini": "Gemini CLI",
                   "perplexity": "Perplexity", "xai": "xAI (Grok)"}


class KeyRow:
    """One key: where it comes from now, a hidden field to paste a new one, Save, Remove."""

    def __init__(self, name: str, providers: tuple[str, ...], grid: QGridLayout, row: int,
                 on_change: Callable[[], None]) -> None:
        self.name = name
        self._on_change = on_change
        title = ", ".join(PROVIDER_TITLES.get(p, p) for p in providers)
        self.title = QLabel(f"<b>{title}</b><br><span style='font-size:small'>{name}</span>")
        self.status = QLabel()
        self.status.setProperty("role", "muted")
        self.field = QLineEdit()
        self.field.setObjectName(f"key_{name}")
        self.field.setEchoMode(QLineEdit.EchoMode.Password)
        self.field.setPlaceholderText("Paste a new key")
        self.field.returnPressed.connect(self.save)
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(self.save)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove)
        self.error = QLabel()
        self.error.setProperty("role", "error")
        self.error.setWordWrap(True)
        self.error.hide()
        grid.addWidget(self.title, row, 0)
        grid.addWidget(self.status, row, 1)
        grid.addWidget(self.field, row, 2)
        grid.addWidget(self.save_button, row, 3)
        grid.addWidget(self.remove_button, row, 4)
        grid.addWidget(self.error, row + 1, 1, 1, 4)

    def show_status(self, status: keychain.KeyStatus, usable: bool) -> None:
        if status.in_environment:
            text = "Set in the environment (used first)"
        elif status.in_keyring:
            text = "In the keyring"
        else:
            text = "Not set"
        self.status.setText(text)
        self.field.setEnabled(usable)
        self.save_button.setEnabled(usable)
        self.remove_button.setEnabled(usable and status.in_keyring)

    def save(self) -> None:
        value = self.field.text()
        if not value.strip():
            return
        try:
            keychain.set_key(self.name, value)
        except keychain.KeychainError as exc:
            self._fail(str(exc))
        else:
            self.error.hide()
        self.field.clear()  # the value lives in the keyring only, never in a widget
        self._on_change()

    def remove(self) -> None:
        try:
            keychain.delete_key(self.name)
        except keychain.KeychainError as exc:
            self._fail(str(exc))
        self._on_change()

    def _fail(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()


class SettingsDialog(QDialog):
    """Theme, notifications, the service and API keys; changes apply at once."""

    def __init__(self, window: EditorWindow) -> None:
        super().__init__(window)
        keep_readable(self)  # never dragged down to a sliver
        self.setWindowTitle("Settings")
        self.setObjectName("settingsDialog")
        self.window_ = window
        layout = QVBoxLayout(self)
        layout.addWidget(self._theme_group())
        layout.addWidget(self._notifications_group())
        self.service = ServiceGroup(window.use_chosen_service)
        layout.addWidget(self.service)
        layout.addWidget(self._keys_group(), 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        self.refresh()
        self.resize(760, self.sizeHint().height())

    def _theme_group(self) -> QGroupBox:
        box = QGroupBox("Theme")
        row = QHBoxLayout(box)
        self.themes = QButtonGroup(self)
        current = self.window_.theme_choice
        for i, (choice, text) in enumerate(THEMES):
            button = QRadioButton(text)
            button.setObjectName(f"theme_{choice}")
            button.setChecked(choice == current)
            self.themes.addButton(button, i)
            row.addWidget(button)
        row.addStretch(1)
        self.themes.idClicked.connect(self._pick_theme)
        return box

    def _pick_theme(self, index: int) -> None:
        self.window_.set_theme_choice(THEMES[index][0])
        # a button box takes its icons once; this dialog is open while the theme changes
        if not self.close_button.icon().isNull():  # none where the desktop shows none
            self.close_button.setIcon(self.style().standardIcon(
                QStyle.StandardPixmap.SP_DialogCloseButton))

    def _notifications_group(self) -> QGroupBox:
        box = QGroupBox("Notifications")
        column = QVBoxLayout(box)
        note = QLabel("A desktop notification when a run needs you while Agent Canvas is "
                      "not the active window; clicking it brings the run up.")
        note.setWordWrap(True)
        note.setProperty("role", "muted")
        column.addWidget(note)
        on = nudge_kinds()
        self.nudge_switches: dict[NudgeKind, QCheckBox] = {}
        for kind in KINDS:
            switch = QCheckBox(KIND_TITLES[kind])
            switch.setObjectName(f"notify_{kind}")
            switch.setChecked(kind in on)
            switch.toggled.connect(lambda checked, k=kind: self._switch_nudges(k, checked))
            self.nudge_switches[kind] = switch
            column.addWidget(switch)
        return box

    def _switch_nudges(self, kind: NudgeKind, on: bool) -> None:
        set_nudge_kind(kind, on)
        app_notifier().set_enabled(nudge_kinds())

    def _keys_group(self) -> QGroupBox:
        box = QGroupBox("API keys")
        outer = QVBoxLayout(box)
        self.keyring_note = QLabel()
        self.keyring_note.setWordWrap(True)
        self.keyring_note.setProperty("role", "muted")
        outer.addWidget(self.keyring_note)
        grid = QGridLayout()
        grid.setColumnStretch(2, 1)
        grid.setHorizontalSpacing(10)
        outer.addLayout(grid)
        self.rows: dict[str, KeyRow] = {}
        for i, name in enumerate(keychain.key_names()):
            self.rows[name] = KeyRow(name, keychain.providers_of(name), grid, 2 * i,
                                     self.refresh)
        return box

    def refresh(self) -> None:
        """Show where each key comes from now (never the key)."""
        usable = keychain.available()
        if usable:
            self.keyring_note.setText(
                f"Keys are kept in your system keyring ({keychain.backend_name()}), never in "
                "a file of Agent Canvas. An agent gets only its own provider's key, by name, "
                "when its turn starts; a variable exported before the app started wins.")
        else:
            self.keyring_note.setText(
                "No system keyring is available here, so keys cannot be stored. Export "
                "them (for example ANTHROPIC_API_KEY) before starting Agent Canvas, or "
                "install a keyring service such as GNOME Keyring or KWallet.")
        for status in keychain.statuses():
            self.rows[status.name].show_status(status, usable)
