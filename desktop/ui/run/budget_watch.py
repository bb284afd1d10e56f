"""Budgets in the run panels: the toolbar's meter and the over-budget banner follow the run
on show, and the banner's "Raise limit and resume" sends SetBudget, then Resume, through
the session the other run controls use. Against a run-level time limit the meter is
counted again every second while the run runs, as the cards' meters are."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from desktop.ui.run.budget_banner import BudgetBanner
from desktop.ui.run.run_meter import RunMeter
from desktop.views.budget_meter import run_ticking

if TYPE_CHECKING:
    from desktop.ui.run.attach import RunPanels
    from desktop.ui.run.session import RunSession


class BudgetWatch(QObject):
    """Keeps ``meter`` and ``banner`` in step with ``panels``' run and acts on the banner."""

    def __init__(self, panels: RunPanels, banner: BudgetBanner) -> None:
        super().__init__(panels)
        self.panels = panels
        self.banner = banner
        self.meter = RunMeter()
        panels.controls.addWidget(self.meter)
        self.tasks: set[asyncio.Future] = set()
        self.state: dict | None = None  # the run's state on show
        self.clock = QTimer(self)
        self.clock.setInterval(1000)
        self.clock.timeout.connect(lambda: self.meter.set_state(self.state))
        panels.sessionChanged.connect(self._session)
        panels.timeline.stateAt.connect(lambda _seq, state: self._show(state, live=False))
        banner.raiseRequested.connect(self.raise_and_resume)
        banner.stopRequested.connect(panels.ask_stop)

    def _session(self, session: RunSession | None) -> None:
        if session is None:
            self._show(None, live=False)
            return
        session.bridge.stateChanged.connect(lambda state: self._follow(session, state))
        self._follow(session, session.state)

    def _follow(self, session: RunSession, state: dict | None) -> None:
        if session is self.panels.session and not self.panels.replaying:
            self._show(state, live=session.live)

    def _show(self, state: dict | None, live: bool) -> None:
        self.state = state
        self.meter.set_state(state)
        self.banner.set_state(state, live)
        if live and run_ticking(state):
            if not self.clock.isActive():
                self.clock.start()
        else:
            self.clock.stop()

    def raise_and_resume(self, node_id: str | None, limit: str, value: float) -> None:
        """Set the new limit, then resume once the service took it."""
        session = self.panels.session
        if session is None:
            return

        async def raise_then_resume() -> None:
            sent = session.set_budget(node_id, {limit: value})
            if sent is not None and await sent is not None:
                session.resume()

        task = asyncio.ensure_future(raise_then_resume())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
