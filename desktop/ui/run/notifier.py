"""The app's one notifier: shows the nudges of every run a window watches, and brings the
run up when a nudge is clicked.

Each window's run panels hand it the typed notices of every batch of events they follow
(never the events replayed when a run is opened). The decision is
:class:`~desktop.views.nudges.Nudges`'s; this side only asks whether the user looks at
the app, shows the nudge through a :class:`~desktop.ui.run.nudge_tray.NudgeTray`, and on
a click raises the window, selects the run's tab (opening it again if it was closed) and
focuses what waits: the inbox entry, the stall banner, the run controls or the result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid

from desktop.ui.run.nudge_tray import NudgeTray, system_tray
from desktop.ui.settings import nudge_kinds
from desktop.views.notices import Notice
from desktop.views.nudges import Nudge, Nudges, list_notices, one_of, requests_by_run
from desktop.views.result import listed_left, what_it_left

_NOTIFIER: Notifier | None = None


class Notifier(QObject):
    """Nudges for every watched run, shown through ``tray``; a click opens the last one."""

    shown = Signal(object)  # the Nudge just shown

    def __init__(self, tray: NudgeTray | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rules = Nudges(nudge_kinds())
        self.tray: NudgeTray = tray if tray is not None else system_tray(self)
        self.tray.clicked.connect(self.open_last)
        self.last: tuple[Nudge, Path, QWidget] | None = None
        self._listed: dict[str, str] = {}  # run id -> status, in the service's last list

    def observe(self, panels: Any, notices: list[Notice]) -> Nudge | None:
        """A batch of notices of the run ``panels`` show: nudge when it needs the user and
        no window of the app is active; the nudge shown, if any."""
        session = panels.session
        if session is None or not notices:
            return None
        state = session.state or {}
        name = str(state.get("workflowName") or "")
        watching = QApplication.activeWindow() is not None
        labels = {str(k): str(v.get("label") or "") for k, v in
                  (state.get("nodes") or {}).items() if isinstance(v, dict)}
        nudge = one_of(self.rules.decide(session.run_id, name, notices, watching=watching,
                                         left=what_it_left(state), labels=labels))
        if nudge is not None:
            self._show(nudge, Path(session.run_dir), panels.window)
        return nudge

    def follow(self, feed: Any, panels: Any) -> None:
        """Nudge for every run of the service too, as ``feed`` (an
        :class:`~desktop.ui.run.approval_feed.ApprovalFeed`) finds them: the requests, the
        pauses and the ends of runs no tab shows (a closed tab, a run the CLI started).
        What its first answer lists was there before the app looked, so it is not news."""
        feed.changed.connect(lambda: self._feed_changed(feed, panels))

    def _feed_changed(self, feed: Any, panels: Any) -> None:
        if not (isValid(self) and isValid(feed)):  # the feed can outlive a replaced notifier
            return
        watching = feed.answers <= 1 or QApplication.activeWindow() is not None
        by_run = requests_by_run(feed.items)
        for run_id, notices in list_notices(self._listed, feed.listed).items():
            by_run.setdefault(run_id, []).extend(notices)
        rows = {str(r.get("id")): r for r in feed.listed}
        self._listed = {str(r.get("id")): str(r.get("status") or "") for r in feed.listed}
        nudges = []
        for run_id, notices in by_run.items():
            info = feed.runs.get(run_id)
            row = rows.get(run_id) or {}
            name = info.name if info is not None and info.name else str(
                row.get("workflowName") or "")
            nudges += self.rules.decide(run_id, name, notices, watching=watching,
                                        left=listed_left(row))
        nudge = one_of(nudges)
        if nudge is not None and isValid(panels):
            self._show(nudge, panels._data_dir() / "runs" / nudge.run_id, panels.window)

    def _show(self, nudge: Nudge, run_dir: Path, window: QWidget) -> None:
        self.last = (nudge, run_dir, window)
        self.tray.show(nudge, window)
        self.shown.emit(nudge)

    def set_enabled(self, kinds: set[Any]) -> None:
        """The kinds turned on (the settings dialog's switches)."""
        self.rules.enabled = set(kinds)

    def open_last(self) -> Any:
        """The last nudge was clicked: bring its run up and focus what waits; the editor
        window that shows it (None when there is none left to open it in)."""
        from desktop.ui.run.bring_up import bring_up_run

        if self.last is None:
            return None
        nudge, run_dir, window = self.last
        editors = _open_editors()
        if window not in editors:  # its tab was closed: open the run beside another
            if not editors:
                return None
            window = editors[0]
        editor = bring_up_run(window, run_dir)
        if editor is None:
            return None
        focus(editor.run_panels, nudge)
        return editor


def focus(panels: Any, nudge: Nudge) -> None:
    """Bring forward and focus what ``nudge`` is about in ``panels``' window."""
    if nudge.target == "approval":
        panels.docks["approvals"].show()
        panels.docks["approvals"].raise_()
        panels.approvals.select(nudge.item)
    elif nudge.target == "stall" and panels.stall.isVisible():
        panels.stall.resume_button.setFocus()
    elif nudge.target == "result":
        panels.docks["result"].show()
        panels.docks["result"].raise_()
        panels.result.files.setFocus()
    elif nudge.target in ("diffs", "conversation"):  # an end with no result branch
        panels.docks[nudge.target].show()
        panels.docks[nudge.target].raise_()
    elif nudge.target == "paused" and not panels.budget.isHidden():  # a budget reached
        panels.budget.raise_button.setFocus()
    else:  # paused (or a stall already over): Resume is in the run controls
        resume = panels.controls.widgetForAction(panels.controls.resume_action)
        if resume is not None:
            resume.setFocus()
        panels.window.statusBar().showMessage(nudge.line, 10000)


def _open_editors() -> list[Any]:
    """The editor windows still open (tabs, and windows of their own)."""
    from desktop.ui.tabs import TAB_WINDOWS
    from desktop.ui.window import OPEN_WINDOWS

    editors = [e for w in TAB_WINDOWS if isValid(w) for e in w.editors()]
    return [e for e in editors + list(OPEN_WINDOWS) if e is not None and isValid(e)]


def app_notifier() -> Notifier:
    """The app's notifier (made on first use, with the desktop's system tray)."""
    global _NOTIFIER
    if _NOTIFIER is None or not isValid(_NOTIFIER):
        _NOTIFIER = Notifier(parent=QApplication.instance())
    return _NOTIFIER


def set_app_notifier(notifier: Notifier | None) -> None:
    """Use ``notifier`` for the app from now on (None: make a new one on next use)."""
    global _NOTIFIER
    _NOTIFIER = notifier
