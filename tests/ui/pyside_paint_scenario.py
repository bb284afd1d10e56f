"""PySide6 6.12.0 on CPython 3.11 aborts with 'none_dealloc' after many Python paint() calls.

Run as a script: ``python pyside_paint_scenario.py [RENDERS]``; prints ``ok`` on success.
Kept as a standalone program so a crash kills only the subprocess, not the test run.
"""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtGui, QtWidgets


class Item(QtWidgets.QGraphicsItem):
    def boundingRect(self) -> QtCore.QRectF:  # Qt API name
        return QtCore.QRectF(0, 0, 10, 10)

    def paint(self, painter, option, widget=None) -> None:
        painter.drawRect(0, 0, 10, 10)


def main(renders: int) -> int:
    app = QtWidgets.QApplication([])
    scene = QtWidgets.QGraphicsScene()
    for i in range(200):
        item = Item()
        item.setPos(i * 12, 0)
        scene.addItem(item)
    image = QtGui.QImage(3000, 20, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    for k in range(renders):
        painter = QtGui.QPainter(image)
        scene.render(painter)
        painter.end()
        if k % 500 == 0:
            print(k, "refcount(None)=", sys.getrefcount(None), flush=True)
    del app
    print("ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50))
