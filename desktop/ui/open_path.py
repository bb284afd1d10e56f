"""Open a file or folder of the user's where they work: in ``$VISUAL`` / ``$EDITOR`` when
set, else with the desktop's default application. Kept apart from the views that offer it
(Diffs, a node's menu), so offering it loads nothing of theirs."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices


def open_in_editor(path: Path) -> bool:
    """Open ``path`` in $VISUAL / $EDITOR, else the desktop's default application."""
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if command:
        try:
            subprocess.Popen([*shlex.split(command), str(path)], start_new_session=True)
            return True
        except OSError:
            pass
    return open_with_desktop(path)


def open_with_desktop(path: Path) -> bool:
    """Open ``path`` with the desktop's default application (a folder: the file manager)."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


__all__ = ["open_in_editor", "open_with_desktop"]
