"""A view's pin: while it is down, the view keeps the node it shows, whatever the canvas
selects; up, the view follows the selection again (Conversation, Transcript, Diffs)."""

from __future__ import annotations

from PySide6.QtWidgets import QToolButton, QWidget


def pin_button(parent: QWidget | None = None) -> QToolButton:
    """The checkable Pin beside a view's node list."""
    button = QToolButton(parent)
    button.setObjectName("pinNode")
    button.setText("Pin")
    button.setCheckable(True)
    button.setToolTip("Pin: keep the node picked here while another is selected on the canvas")
    return button
