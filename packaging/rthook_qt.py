"""Runtime hook of the bundle, in place of PyInstaller's ``pyi_rth_pyside6``.

PyInstaller's hook imports ``PySide6.QtCore`` (Qt and its 30 MB ICU data) when any
process of the bundle starts, to register a ``qt.conf``; every ``bus post``, scripted
agent turn and ``validate`` would pay for it. Here only Qt's plugin folder is set,
which is all the PyPI build of PySide6 needs to find its plugins.
"""

import os
import sys

_qt = os.path.join(sys._MEIPASS, "PySide6", "" if sys.platform == "win32" else "Qt")
os.environ["QT_PLUGIN_PATH"] = os.path.join(_qt, "plugins")
if sys.platform == "win32":  # QtNetwork's OpenSSL DLLs, as PyInstaller's hook does
    os.environ["PATH"] = sys._MEIPASS + os.pathsep + os.environ.get("PATH", "")
del _qt
