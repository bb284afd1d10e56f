"""Close loops with pending Qt timers, then collect them on a worker thread.

Run as a script (a crash must not take the test process with it). Exits 0 when
the GUI thread survives the timers that were due after the collection.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import threading

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication


def main(factory: str) -> int:
    app = QApplication(sys.argv[:1])
    if factory == "qasync":
        import qasync

        make = qasync.QEventLoop
    else:
        from desktop.ui.loop import new_event_loop

        make = new_event_loop
    gc.disable()
    for _ in range(30):
        loop = make(app)
        asyncio.set_event_loop(loop)
        handle = loop.call_later(0.02, lambda: None)
        handle.cancel()
        loop.call_later(0.03, lambda: None)
        loop.close()
        asyncio.set_event_loop(None)
        del loop, handle
        collector = threading.Thread(target=gc.collect)
        collector.start()
        collector.join()
        spin = QEventLoop()
        QTimer.singleShot(60, spin.quit)
        spin.exec()
    QCoreApplication.processEvents()
    print("survived")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "ours"))
