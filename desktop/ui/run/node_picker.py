"""The node picker of a run view: the list of the run's nodes ("All nodes" first) and its
Pin. Pinned, the view keeps the node it shows whatever the canvas selects; unpinned, it
follows the selection (Conversation, Transcript, Diffs, Record)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QToolButton, QWidget


def node_combo(name: str, letters: int, parent: QWidget | None = None) -> QComboBox:
    """A node list wide enough for ``letters`` characters, "All nodes" picked."""
    combo = QComboBox(parent)
    combo.setObjectName(name)
    combo.setMinimumContentsLength(letters)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.addItem("All nodes", None)
    return combo


def pin_button(parent: QWidget | None = None) -> QToolButton:
    """The checkable Pin beside a view's node list."""
    button = QToolButton(parent)
    button.setObjectName("pinNode")
    button.setText("Pin")
    button.setCheckable(True)
    button.setToolTip("Pin: keep the node picked here while another is selected on the canvas")
    return button
