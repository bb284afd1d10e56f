"""The run toolbar's budget meter: the run's total usage and the share of its budget used,
coloured amber from 80 % and red once a limit is reached."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from desktop.ui.canvas import status_badge
from desktop.ui.canvas.usage_meter import LEVEL_COLORS
from desktop.views.budget_meter import OK, Meter, run_meter


def meter_text(meter: Meter | None) -> str:
    """``Usage: 12.3k tok · $0.04 · 83% of the tokens budget`` ("" before the run spends)."""
    if meter is None:
        return ""
    budget = f" · {meter.budget_text}" if meter.budget_text else ""
    return f"Usage: {meter.usage_text}{budget}"


class RunMeter(QLabel):
    """The run's usage and budget share, as the run's state says."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runMeter")
        self.meter: Meter | None = None
        self.set_state(None)

    def set_state(self, state: dict | None) -> None:
        """Show the usage of ``state`` (None: no run, nothing shown)."""
        meter = run_meter(state, status_badge.utc_now())  # the cards' clock
        if meter == self.meter and state is not None:
            return
        self.meter = meter
        level = meter.level if meter is not None else OK
        self.setText(f"  {meter_text(meter)}  " if meter is not None else "")
        self.setStyleSheet("" if level == OK else
                           f"QLabel {{ color: {LEVEL_COLORS[level]}; font-weight: 600; }}")
        self.setToolTip("What the run has spent; a budget set on the workflow pauses it at "
                        "its limit" if meter is not None else "")
