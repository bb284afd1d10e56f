"""Parts of a window made when first needed, so its first paint does not wait for them.

:class:`Built` marks an attribute of an object that makes a group of such parts in one
``build()``: reading any of them builds the whole group first. :func:`after_first_paint`
calls a function on the event loop's turn after a widget (or one of its children) was
first painted: what the window needs soon, but not for its first look, is made then.
:func:`until_painted` runs Qt's events until a window is on the screen, before any loop
exists (start-up's first window).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QElapsedTimer, QEvent, QEventLoop, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid


class Builds(Protocol):
    """An object whose parts ``build()`` makes, once."""

    def build(self) -> None: ...


class Built:
    """An attribute that ``build()`` sets: reading it before then builds the group."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, holder: Builds | None, owner: type | None = None) -> Any:
        if holder is None:
            return self
        holder.build()
        try:  # build() set it in the instance, which hides this descriptor from now on
            return holder.__dict__[self.name]
        except KeyError:  # read by build() itself before it made it
            raise AttributeError(f"{self.name} is read before it is built") from None


class _FirstPaint(QObject):
    """Watches the application's paint events until one is for ``widget`` or a child."""

    def __init__(self, widget: QWidget, call: Callable[[], None]) -> None:
        super().__init__(widget)
        self.widget = widget
        self.call = call
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and isinstance(watched, QWidget) \
                and (watched is self.widget or self.widget.isAncestorOf(watched)):
            QApplication.instance().removeEventFilter(self)
            # after the paint: the next turn of the loop, once this frame is on screen
            QTimer.singleShot(0, self._fire)
        return False

    def _fire(self) -> None:
        if isValid(self) and isValid(self.widget):
            self.call()
            self.deleteLater()


def after_first_paint(widget: QWidget, call: Callable[[], None]) -> None:
    """Call ``call`` on the loop's turn after ``widget`` is first painted (never, if it
    never is, or is deleted first)."""
    _FirstPaint(widget, call)


def until_painted(widget: QWidget, timeout_ms: int = 2000) -> bool:
    """Process Qt's events until ``widget`` (shown) has been painted, or ``timeout_ms``
    has passed (no display server shows it, say); True when it was painted."""
    painted: list[bool] = []
    after_first_paint(widget, lambda: painted.append(True))
    clock = QElapsedTimer()
    clock.start()
    wake = QTimer()  # WaitForMoreEvents returns at the latest on its tick
    wake.start(50)
    app = QApplication.instance()
    try:
        while not painted and isValid(widget) and not clock.hasExpired(timeout_ms):
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    finally:
        wake.stop()
    return bool(painted)


__all__ = ["Builds", "Built", "after_first_paint", "until_painted"]
