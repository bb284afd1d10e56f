"""Where a nudge is shown: the system tray's notification, or, with no tray, the window.

Both speak the same small interface (:class:`NudgeTray`): ``show(nudge, window)`` and a
``clicked`` signal. The system tray's ``messageClicked`` carries nothing, so a click
always means the last message shown. Without a system tray (some Linux desktops, a
headless session) nothing can be clicked: the window's taskbar entry asks for
attention (``QApplication.alert``) and the status bar of the editor window that shows the
run says what happened.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, Signal, SignalInstance
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMainWindow, QSystemTrayIcon, QWidget

from desktop.views.nudges import Nudge

SHOWN_MS = 10000


class NudgeTray(Protocol):
    """Shows a nudge outside the window; ``clicked`` when the user clicks the last one."""

    clicked: SignalInstance

    def show(self, nudge: Nudge, window: QWidget) -> None:
        """Tell the user about ``nudge`` (``window``: the one that shows its run)."""
        ...


class SystemTray(QObject):
    """A notification of the desktop, from an icon in its system tray."""

    clicked = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.icon = QSystemTrayIcon(self)
        self.icon.setToolTip("Agent Canvas")
        self.icon.messageClicked.connect(self.clicked)
        self.icon.activated.connect(lambda _reason: self.clicked.emit())

    def show(self, nudge: Nudge, window: QWidget) -> None:
        if self.icon.icon().isNull():
            icon = QApplication.windowIcon()
            self.icon.setIcon(icon if not icon.isNull() else QIcon.fromTheme("dialog-information"))
        self.icon.show()  # a tray icon must be visible for its message to show
        self.icon.showMessage(nudge.title, nudge.text,
                              QSystemTrayIcon.MessageIcon.Information, SHOWN_MS)


class WindowAlert(QObject):
    """No system tray: the taskbar entry flashes and the status bar says what happened."""

    clicked = Signal()  # never: there is nothing to click

    def show(self, nudge: Nudge, window: QWidget) -> None:
        top = window.window()
        QApplication.alert(top)
        # the status bar of the editor window that shows the run: a tab's own. Asking the
        # tab window for one would make it a second, empty bar under the tab's for good
        shown_in = window if isinstance(window, QMainWindow) else top
        if isinstance(shown_in, QMainWindow):
            shown_in.statusBar().showMessage(nudge.line, SHOWN_MS)


def system_tray(parent: QObject | None = None) -> SystemTray | WindowAlert:
    """The system tray where the desktop has one, else the window's own alert."""
    if QSystemTrayIcon.isSystemTrayAvailable():
        return SystemTray(parent)
    return WindowAlert(parent)
