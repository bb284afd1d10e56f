"""The part every approval dialog shares: sending its decision through the resolver it
was given, one decision at a time while the service answers, then closing on success
or saying that the decision was refused."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QLabel
from shiboken6 import isValid

from desktop.ui import theme as themes
from desktop.ui.theme import readable_on


def error_label() -> QLabel:
    """The line where a dialog says what went wrong: the theme's error colour where it
    reads on the window (a fixed dark red was 2.8:1 on the dark theme's window)."""
    theme = themes.current()
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet(f"color: {readable_on(theme.error, theme.window).name()}")
    return label


_ANSWERING: set[asyncio.Future] = set()
"""Decisions sent and not yet answered: held here, since a task that only the loop knows
of may be collected before it ends."""


class DecisionDialog(QDialog):
    """A dialog deciding one approval (``approval_id``); subclasses have an ``error``
    label, say what a refusal means in ``refused_text`` and turn their buttons on and
    off in :meth:`set_deciding`."""

    decided = Signal(str, str)  # approval id, status
    refused_text = "The request could not be resolved (it may be decided already)."
    approval_id: str
    error: QLabel

    def set_deciding(self, deciding: bool) -> None:
        """Turn the decision buttons off while a decision is being answered, and on
        again after."""

    def send_decision(self, status: str, resolve: Callable[[], object]) -> None:
        """Decide ``status`` with ``resolve()``: the resolver's answer, a bool or an
        awaitable of one."""
        self.error.clear()
        result = resolve()
        if not inspect.isawaitable(result):
            self._decided(status, bool(result))
            return
        self.set_deciding(True)
        future = asyncio.ensure_future(result)
        _ANSWERING.add(future)

        def answered(done: asyncio.Future) -> None:
            _ANSWERING.discard(done)
            accepted = not done.cancelled() and done.exception() is None \
                and bool(done.result())
            if isValid(self):
                self.set_deciding(False)
                self._decided(status, accepted)

        future.add_done_callback(answered)

    def _decided(self, status: str, accepted: bool) -> None:
        if accepted:
            self.decided.emit(self.approval_id, status)
            self.accept()
        else:
            self.error.setText(self.refused_text)
