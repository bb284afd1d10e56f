"""Shortcuts pressed while start-up's window waits for its document, honoured once it is in.

The first window shows before the editor exists (desktop/ui/startup.py). A shortcut
pressed in that moment (F5 to run, Ctrl+O to open) would reach no editor and be lost, so
the user would press it again, or think it did nothing. :class:`EarlyKeys` keeps the key
presses that window gets until then; :meth:`EarlyKeys.replay` triggers the editor's
action for each, in order. Other keys (typing, with nothing to type into yet) are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QKeyCombination, QObject
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid


class EarlyKeys(QObject):
    """Keeps the key presses ``window`` gets, from now until :meth:`replay`."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.keys: list[QKeyCombination] = []
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(watched, QWidget) \
                or watched.window() is not self.window:
            return False
        assert isinstance(event, QKeyEvent)
        if not event.isAutoRepeat():
            self.keys.append(event.keyCombination())
        return True

    def replay(self, actions: Iterable[QAction]) -> list[QAction]:
        """Stop keeping keys, and trigger each enabled action of ``actions`` whose
        shortcut is a kept key (those that work wherever the focus is), in the order
        the keys came; the actions triggered."""
        from PySide6.QtCore import Qt

        self.stop()
        by_keys = {}
        for action in actions:
            if action.shortcutContext() in (Qt.ShortcutContext.WindowShortcut,
                                             Qt.ShortcutContext.ApplicationShortcut):
                for sequence in action.shortcuts():
                    by_keys.setdefault(sequence.toString(), action)
        done = []
        for combination in self.keys:
            action = by_keys.get(QKeySequence(combination).toString())
            if action is not None and isValid(action) and action.isEnabled():
                action.trigger()
                done.append(action)
        return done

    def stop(self) -> None:
        """Keep no more keys (the document is in, or start-up failed)."""
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        if isValid(self):
            self.deleteLater()


__all__ = ["EarlyKeys"]
