"""The over-budget banner: shown while the run is paused on ``run.budget_exceeded``, it
says whose budget, which limit and the usage against it, and offers to raise the limit
and resume, or to stop."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.dialog_size import keep_readable
from desktop.views.budget_meter import Overrun, limit_text, overrun
from desktop.views.state import node_labels

UNITS = {"maxTokens": ("tokens", 0), "maxCostUsd": ("USD", 2), "maxWallSec": ("seconds", 0)}
"""Each limit's unit and decimals in the dialog."""


class RaiseLimitDialog(QDialog):
    """Ask for the new value of the limit that was reached."""

    def __init__(self, whose: str, found: Overrun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.setWindowTitle("Raise a budget limit")
        self.setMinimumWidth(460)
        unit, decimals = UNITS.get(found.limit, ("", 2))
        self.value = QDoubleSpinBox()
        self.value.setObjectName("newLimit")
        self.value.setDecimals(decimals)
        self.value.setRange(10.0 ** -decimals, 1e12)
        self.value.setSuffix(f" {unit}")
        self.value.setValue(found.suggested())
        note = QLabel(f"<b>{escape(whose)}: {found.what} budget</b><br>Used so far: "
                      f"{limit_text(found.limit, found.used)}; the limit was "
                      f"{limit_text(found.limit, found.budget)}.<br>Resuming starts the "
                      "stopped turn over and what it spent stays counted, so leave room "
                      "for it to spend as much again.")
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Raise and resume")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("New limit:", self.value)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addLayout(form)
        layout.addWidget(buttons)


class BudgetBanner(QFrame):
    """Shown while the run is paused because a budget limit was reached."""

    raiseRequested = Signal(object, str, float)  # node id (None: the run's), limit, value
    stopRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.found: Overrun | None = None
        self.whose = "the run"
        self.setObjectName("budgetBanner")
        self.setStyleSheet("#budgetBanner { background: #fdecea; border: 1px solid #eb5757; }")
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.raise_button = QPushButton("&Raise limit and resume")
        self.stop_button = QPushButton("S&top")
        self.raise_button.clicked.connect(self.raise_limit)
        self.stop_button.clicked.connect(self.stopRequested)
        actions = QHBoxLayout()
        actions.addWidget(self.raise_button)
        actions.addWidget(self.stop_button)
        actions.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(actions)
        self.hide()

    def set_state(self, state: dict | None, live: bool = True) -> None:
        """Show the budget the run is paused on (hide when it is not); ``live``: the
        buttons act (a replayed or read-only run only says what happened)."""
        found = overrun(state)
        if found is None:
            self.found = None
            self.hide()
            return
        labels = node_labels(state)
        self.whose = labels.get(found.node_id, found.node_id[:8]) if found.node_id \
            else "the run"
        self.found = found
        self.title.setText(f"<b>Run paused: {self.whose} reached its {found.what} budget.</b> "
                           f"Used {found.usage_text}.")
        for button in (self.raise_button, self.stop_button):
            button.setEnabled(live)
        self.show()

    def raise_limit(self) -> RaiseLimitDialog | None:
        """Ask for a new limit; on OK, ``raiseRequested`` carries it (then resume)."""
        found = self.found
        if found is None:
            return None
        dialog = RaiseLimitDialog(self.whose, found, self)
        dialog.accepted.connect(lambda: self.raiseRequested.emit(
            found.node_id, found.limit, dialog.value.value()))
        dialog.open()  # not exec(): no nested event loop under the asyncio loop
        return dialog
