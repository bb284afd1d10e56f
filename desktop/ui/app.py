"""Start the desktop application: Qt and the GUI's asyncio client code on one loop (qasync).

Runs are not executed here: the local service runs them (desktop/api), and the
window is its client.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QApplication, QWidget

from desktop import __version__
from desktop.contract import client_origin as origin
from desktop.graph.resources import APP_ICON, app_icon_files
from desktop.ui.early_keys import EarlyKeys
from desktop.ui.on_demand import until_painted
from desktop.ui.startup import fill_first_window, show_first_window

if TYPE_CHECKING:  # asyncio itself loads after the first paint (run_app)
    import asyncio

    from desktop.ui.tabs import TabbedWindow

log = logging.getLogger(__name__)


def application() -> QApplication:
    """The process's QApplication, created on first use."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Agent Canvas")
        app.setApplicationVersion(__version__)
        app.setOrganizationName("agent-canvas")
        app.setDesktopFileName(APP_ICON)  # links windows to agent-canvas.desktop
        # the small sizes: a window's first showing sends its icon's every size to the
        # display server (the large ones cost milliseconds); run_app adds them once painted
        app.setWindowIcon(app_icon(max_size=64))
        # Qt would quit, and so stop the asyncio loop (qasync runs it inside Qt's), the
        # moment the last window closes: under whatever coroutine the loop was running,
        # and before a window that is being opened is shown. The app ends itself instead,
        # once no window is left (until_every_window_closed).
        app.setQuitOnLastWindowClosed(False)
    return app  # type: ignore[return-value]


def app_icon(max_size: int | None = None) -> QIcon:
    """The application icon: every shipped size, or the bitmaps up to ``max_size`` pixels
    (empty when the files are missing)."""
    icon = QIcon()
    for path in app_icon_files():
        if max_size is None or (path.suffix == ".png"
                                and int(path.parent.name.partition("x")[0]) <= max_size):
            icon.addFile(str(path))
    return icon


def run_app(path: str | None) -> int:
    """Open the main window (on ``path`` when given) and run until the last one closes.

    The window's API client (HTTP commands, the WebSocket event stream) runs on the
    same loop as the widgets, on the GUI thread, so no thread ever touches a widget.
    """
    origin.declare(origin.APP)  # a decision sent from here was made in the app
    app = application()
    collector = collect_on_gui_thread(app)
    first = show_first_window(path)  # keeps itself alive (TabbedWindow registry)
    early = EarlyKeys(first)  # F5 pressed before the editor is in still runs
    until_painted(first)  # on the screen before asyncio and the editor are even loaded
    app.setWindowIcon(app_icon())
    import asyncio

    from desktop.ui.loop import new_event_loop

    loop = new_event_loop(app)
    asyncio.set_event_loop(loop)
    with loop:
        filled = loop.create_future()
        loop.call_soon(_fill, filled, first, path, early)
        loop.run_until_complete(_session(filled, app))
    collector.stop()
    gc.enable()  # the loop and its Qt objects are gone: any thread may collect again
    return 0


def _fill(filled: asyncio.Future, first: TabbedWindow, path: str | None,
          early: EarlyKeys) -> None:
    # a callback, not a task: the offer to restore crashed work is a modal dialog, whose
    # event loop may run the loop's tasks
    try:
        window = fill_first_window(first, path)
    except Exception as exc:  # to run_app's caller, as an error before the loop would be
        early.stop()
        filled.set_exception(exc)
        return
    filled.set_result(None)
    if window is None:
        early.stop()
    else:
        early.replay(window.findChildren(QAction))


async def _session(filled: asyncio.Future, app: QApplication) -> None:
    await filled
    await until_every_window_closed(app)


def until_every_window_closed(app: QApplication) -> Coroutine[Any, Any, None]:
    """A coroutine that returns once the last window has closed and no other one is
    shown in its place.

    It listens from the call on, not from its first step: a window may close before the
    loop runs the coroutine. A window closing while another is being opened (made, then
    shown in the same turn of the loop) fires ``lastWindowClosed`` too; the app goes on
    for the new one.
    """
    import asyncio

    closed = asyncio.Event()
    app.lastWindowClosed.connect(closed.set)

    def shown() -> list[QWidget]:
        return [w for w in app.topLevelWidgets() if w.isWindow() and w.isVisible()]

    async def wait() -> None:
        try:
            if not shown():  # every window closed before the loop ran (start-up's, say)
                return
            while True:
                await closed.wait()
                closed.clear()
                await asyncio.sleep(0)  # the turn in which a new window may still be shown
                if not shown():
                    return
                log.debug("a window closed, %d still open: the app goes on", len(shown()))
        finally:
            app.lastWindowClosed.disconnect(closed.set)

    return wait()


def collect_on_gui_thread(app: QApplication, interval_ms: int = 1000) -> QTimer:
    """Run Python's cyclic collector only on the GUI thread, from a timer.

    A Qt object caught in a reference cycle is freed by whichever thread the
    collector runs on; freed on a foreign thread, its timers and notifiers stay
    registered against freed memory and crash the GUI thread later.

    A full pass walks every object the process has, most of them the modules' own
    (functions, types, field descriptors) that live as long as the process. The first
    tick collects fully and then freezes what survived, so later full passes walk only
    what came after it and the window does not pause for the imports' sake.
    """
    gc.disable()
    ticks = 0

    def collect() -> None:
        nonlocal ticks
        ticks += 1
        if ticks == 1:
            gc.collect(2)
            gc.freeze()  # the start-up objects: never collected again, never walked again
            return
        gc.collect(2 if ticks % 30 == 0 else 1)  # a full pass costs more: every 30th tick

    timer = QTimer(app)
    timer.timeout.connect(collect)
    timer.start(interval_ms)
    return timer
