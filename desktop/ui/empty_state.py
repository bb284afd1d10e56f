"""What a panel shows where its list would be while the list is empty: a short centred
text in the theme's muted colour (the style sheet's ``QLabel[role="muted"]``) on the
base colour of the list it stands for, so an empty panel says it is empty instead of
looking broken. The muted colour reads on the base, the window and the canvas (4.5:1 and
more in both themes)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


def empty_label(text: str, name: str, parent: QWidget | None = None) -> QLabel:
    """A centred, wrapped, muted ``text`` named ``name`` (for tests and style sheets)."""
    label = QLabel(text, parent)
    label.setObjectName(name)
    label.setProperty("role", "muted")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setContentsMargins(16, 16, 16, 16)
    label.setBackgroundRole(QPalette.ColorRole.Base)
    label.setAutoFillBackground(True)
    # clicks and the wheel go to the list under it, whose empty space it covers
    label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    return label


def over_view(view: QWidget, text: str, name: str) -> QLabel:
    """An :func:`empty_label` laid over ``view`` (a list's viewport) and filling it; show
    it while the list is empty."""
    label = empty_label(text, name)
    layout = QVBoxLayout(view)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(label)
    return label
