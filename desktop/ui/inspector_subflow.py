"""The inspector's section for a subflow node: its workflow file, to change or open.

A subflow node has no agent, so the inspector shows this section in place of the
agent's (provider, model, instructions, limits...).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

SUBFLOW_TIP = ("The workflow file this node runs as one step, relative to this "
               "workflow's file (absolute until it is saved)")


class SubflowSection(QWidget):
    """``flow:`` of the node shown, with "Change…" and "Open subflow"."""

    changeClicked = Signal()
    openClicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        header = QLabel("SUBFLOW")
        header.setProperty("role", "section")
        self.file = QLabel()
        self.file.setObjectName("field_node_flow")
        self.file.setWordWrap(True)
        self.file.setToolTip(SUBFLOW_TIP)
        self.file.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.change = QPushButton("Change\u2026")
        self.change.setToolTip("Run another workflow file in this node")
        self.open = QPushButton("Open subflow")
        self.open.setToolTip("Show the graph inside this node")
        buttons = QHBoxLayout()
        buttons.addWidget(self.change)
        buttons.addWidget(self.open)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(header)
        layout.addWidget(self.file)
        layout.addLayout(buttons)
        self.change.clicked.connect(self.changeClicked)
        self.open.clicked.connect(self.openClicked)

    def show_flow(self, flow: str) -> None:
        """Show the node's ``flow:``."""
        self.file.setText(flow)
