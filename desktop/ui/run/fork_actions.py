"""Forking from the replay scrubber and comparing runs, for one window's run panels.

Fork from here… opens :class:`ForkDialog` on the state at the fork point the chosen seq
snaps to; forking goes through the service (``POST /api/runs/{id}/fork``) and the new
run is shown, attached, like any run the window started. Compare opens a
:class:`CompareView` (the digests are read on a worker thread: no Qt object there).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMessageBox
from shiboken6 import isValid

from desktop.contract.enums import RUN_ENDED
from desktop.ui.run.compare_view import CompareView
from desktop.ui.run.fork_dialog import ForkDialog
from desktop.ui.run.session import RunSession
from desktop.views.replay import HeldEvents

if TYPE_CHECKING:
    from desktop.ui.run.attach import RunPanels
    from desktop.ui.theme import Theme

log = logging.getLogger(__name__)


class ForkActions(QObject):
    """Fork and Compare for ``panels``; the open dialog and compare windows are kept."""

    def __init__(self, panels: RunPanels) -> None:
        super().__init__(panels)
        self.panels = panels
        self.dialog: ForkDialog | None = None
        self.compares: list[CompareView] = []
        self.error: QMessageBox | None = None
        self._tasks: set[asyncio.Task] = set()
        panels.timeline.forkRequested.connect(self.fork_from)
        panels.history.compareRequested.connect(self.compare)

    def _status(self, message: str) -> None:
        self.panels.window.statusBar().showMessage(message, 15000)

    def _refuse(self, title: str, message: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, message,
                          QMessageBox.StandardButton.Ok, self.panels.window)
        box.open()  # not exec(): no nested event loop inside the asyncio loop
        self.error = box

    # --- fork ---------------------------------------------------------------------------------

    def fork_from(self, seq: int) -> ForkDialog | None:
        """Open the fork dialog for the replayed run at ``seq`` (snapped to a point)."""
        from desktop.views.forks import NoForkPoint, scan_events, scan_run

        panels = self.panels
        replay = panels.timeline.replay
        session = panels.session
        if session is None or replay is None:
            self._status("Replay a run first: Run history > Replay.")
            return None
        run_dir = session.run_dir
        try:
            if isinstance(replay.log, HeldEvents):  # the API's events: no folder to scan
                live = (session.state or {}).get("status") not in RUN_ENDED
                scan = scan_events(replay.log.events, live=live)
            else:
                scan = scan_run(run_dir)
            snap = scan.snap(max(seq, 1))
        except NoForkPoint as exc:
            self._refuse("Cannot fork here", str(exc))
            return None
        state = replay.state_at(snap.point.seq) or {}
        dialog = ForkDialog(state, snap, str(state.get("workflowName") or ""), panels.window)
        dialog.accepted.connect(lambda: self._start_fork(run_dir, snap.requested, dialog))
        dialog.open()
        self.dialog = dialog
        return dialog

    def _start_fork(self, run_dir: Path, at: int, dialog: ForkDialog) -> None:
        task = asyncio.ensure_future(self.fork(run_dir, at, dialog.node_edits(),
                                               dialog.item_edits()))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def fork(self, run_dir: Path, at: int, nodes: list[dict], items: list[dict]
                   ) -> RunSession | None:
        """Fork in the service and show the new run; None (and a message box) on failure."""
        panels = self.panels
        self._status("Forking the run…")
        try:
            session, made = await RunSession.fork(run_dir, at, nodes=nodes, items=items,
                                                  parent=panels, remote=panels.remote)
        except Exception as exc:  # the service said no, or could not start: say why
            log.info("fork refused: %s", exc)
            self._refuse("Cannot fork the run", str(exc))
            return None
        panels.show_session(session)
        panels.history.refresh()
        self._status(f"Forked as {session.run_id[:8]}: {made['point']}")
        return session

    # --- compare ------------------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        """Re-colour the open compare windows in ``theme``."""
        self.compares = [v for v in self.compares if isValid(v)]
        for view in self.compares:
            view.set_theme(theme)

    def compare(self, left: Path, right: Path) -> asyncio.Task:
        """Open a window comparing the runs in ``left`` and ``right``."""
        task = asyncio.ensure_future(self._compare(Path(left), Path(right)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _compare(self, left: Path, right: Path) -> CompareView | None:
        from desktop.views.compare import digest_run

        try:
            a, b = await asyncio.gather(asyncio.to_thread(digest_run, left),
                                        asyncio.to_thread(digest_run, right))
        except (OSError, ValueError) as exc:
            self._refuse("Cannot compare the runs", str(exc))
            return None
        theme = self.panels.parts.theme()
        view = CompareView(a, b, theme, self.panels.window)
        view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.compares = [v for v in self.compares if isValid(v)] + [view]
        view.show()
        return view
