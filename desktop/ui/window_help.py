"""The editor window's Help commands and its Settings dialog.

:class:`HelpCommands` is ``window.help``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from desktop import __version__

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


class HelpCommands:
    """Settings, the keyboard shortcuts and the About box of one editor window."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window

    def settings(self) -> None:
        """The Settings dialog: theme, API keys, the service."""
        from desktop.ui.settings_dialog import SettingsDialog

        SettingsDialog(self.window).exec()

    def shortcuts(self) -> None:
        """Every command with its keys, and the canvas gestures."""
        from desktop.ui.help_dialog import ShortcutsDialog

        ShortcutsDialog(self.window).exec()

    def about(self) -> None:
        """The version, and what the app is for."""
        QMessageBox.about(self.window, "About Agent Canvas",
                          f"<b>Agent Canvas</b> {__version__}<br>Draw, run and replay "
                          "agent-orchestration graphs.")
