"""The run toolbar: Run, Run interactively, Step, Pause, Resume, Stop, the run's state (and the
Approvals badge beside it), and the mode switches."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QMenu, QToolBar, QToolButton, QWidget

from desktop.contract.enums import RUN_ENDED
from desktop.ui.scroll_safe import ScrollSafeCombo

STATE_WIDTH = 220
"""The most the run's state takes in the toolbar, in pixels (window_size.LEAST_SIZE
leaves room for it)."""


class RunControls(QToolBar):
    """Buttons that ask for run commands; enabled according to the run's status."""

    runRequested = Signal(bool)  # interactive?
    stepRequested = Signal(object)  # node id or None
    pauseRequested = Signal()
    resumeRequested = Signal()
    stopRequested = Signal()
    modeRequested = Signal(str)  # the open run's mode
    globalModeRequested = Signal(str)
    documentModesRequested = Signal(str, str)  # no run runs: the workflow's (mode, global)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Run", parent)
        self.setObjectName("runToolbar")
        self.run_action = self._action("▶ Run", "F5", lambda: self.runRequested.emit(False))
        self.run_interactive_action = self._action(
            "Run interactively", "Shift+F5", lambda: self.runRequested.emit(True))
        self.step_action = self._action("Step", "F10", lambda: self.stepRequested.emit(None))
        self.step_menu = QMenu(self)
        self.step_button = QToolButton()
        self.step_button.setText("Step node")
        self.step_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.step_button.setMenu(self.step_menu)
        self.addWidget(self.step_button)
        self.pause_action = self._action("Pause", "F6", self.pauseRequested.emit)
        self.resume_action = self._action("Resume", "F7", self.resumeRequested.emit)
        self.stop_action = self._action("■ Stop", "Shift+F6", self.stopRequested.emit)
        self.addSeparator()
        # the run's state (and the Approvals badge, add_badge) before the mode switches: in
        # a narrow window what goes behind the toolbar's » is what is read least
        self.status_label = QLabel("  no run")
        self.status_label.setObjectName("runState")
        self._state_action = self.addWidget(self.status_label)
        self._modes_at = self.addSeparator()
        # a wheel passing over the toolbar must not switch a live run's mode
        self.mode = ScrollSafeCombo()
        self.mode.setObjectName("runMode")
        self.mode.addItems(["AUTO", "INTERACTIVE"])
        self.mode.setToolTip("AUTO starts turns on its own; INTERACTIVE waits for Step")
        self.mode.activated.connect(lambda _i: self._mode_picked())
        self.global_mode = ScrollSafeCombo()
        self.global_mode.setObjectName("runGlobalMode")
        self.global_mode.addItems(["IMPLEMENTATION", "PLANNING"])
        self.global_mode.activated.connect(lambda _i: self._mode_picked(global_mode=True))
        self.addWidget(self.mode)
        self.addWidget(self.global_mode)
        self.active = False  # a live run that has not ended: the combos steer it
        self._state_text = ""  # the run's state in full (the label may show it cut)
        self.document_modes: tuple[str, str] | None = None  # the workflow's own
        self.set_state(None, live=False)

    def add_badge(self, badge: QAction) -> None:
        """Put the Approvals badge right after the run's state."""
        self.insertAction(self._modes_at, badge)

    def show_state(self, text: str) -> None:
        """``text`` as the run's state, cut to :data:`STATE_WIDTH` (whole in its tooltip),
        so a long one (a stall, the next node's name) never pushes the badge out of sight."""
        metrics = self.status_label.fontMetrics()
        shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, STATE_WIDTH)
        self.status_label.setText(shown)
        self.status_label.setToolTip(f"The run: {text.strip()}" if shown != text else "")

    def set_document_modes(self, mode: str, global_mode: str) -> None:
        """The workflow's modes: shown (and edited) while no run of it runs."""
        self.document_modes = (mode, global_mode)
        if not self.active:
            self._show_modes(mode, global_mode, editable=True)

    def _show_modes(self, mode: str, global_mode: str, editable: bool) -> None:
        self.mode.setCurrentText(mode)
        self.global_mode.setCurrentText(global_mode)
        for combo in (self.mode, self.global_mode):
            combo.setEnabled(editable)
        whose = "this run's" if self.active else "the workflow's (new runs start in it)"
        self.mode.setToolTip(f"Mode, {whose}: AUTO starts turns on its own; INTERACTIVE "
                             "waits for Step")
        self.global_mode.setToolTip(f"Global mode, {whose}: PLANNING lets no node write code")

    def _mode_picked(self, global_mode: bool = False) -> None:
        if self.active:
            if global_mode:
                self.globalModeRequested.emit(self.global_mode.currentText())
            else:
                self.modeRequested.emit(self.mode.currentText())
        else:
            self.documentModesRequested.emit(self.mode.currentText(),
                                             self.global_mode.currentText())

    def _action(self, text: str, shortcut: str, slot) -> QAction:
        action = QAction(text, self)
        name = text.strip("▶■ ")
        action.setObjectName("run_" + name.lower().replace(" ", "_"))
        action.setProperty("command", name)
        action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(f"{text.strip('▶■ ')} ({shortcut})")
        action.triggered.connect(lambda _c=False: slot())
        self.addAction(action)
        return action

    def set_state(self, state: dict | None, *, live: bool, running: bool = False,
                  next_node: str | None = None, resumable: bool = False,
                  waiting: str | None = None) -> None:
        """Enable what makes sense for the run's status (None: no run open); ``next_node``
        is the node Step runs next (INTERACTIVE); ``resumable``: a run no engine holds
        that Resume continues (left paused), read-only until then; ``waiting``: what the
        run waits on a person for (desktop/views/run_waiting.py), shown instead of its
        status."""
        status = (state or {}).get("status")
        active = live and status not in RUN_ENDED and state is not None
        self.run_action.setEnabled(not active)
        self.run_interactive_action.setEnabled(not active)
        interactive = (state or {}).get("mode") == "INTERACTIVE"
        self.step_action.setEnabled(active and interactive)
        self.step_button.setEnabled(active and interactive)
        self.pause_action.setEnabled(active and status == "running")
        # a failed run resumes too: its failed turn runs again (the failure banner's Retry)
        self.resume_action.setEnabled(resumable or (live and status == "failed") or (
            active and (status == "paused" or not running)))
        self.stop_action.setEnabled(active)
        self.active = active
        if active:  # one source of truth: the run's modes while it runs...
            self._show_modes(str(state.get("mode", "AUTO")),
                             str(state.get("globalMode", "IMPLEMENTATION")), editable=True)
        elif self.document_modes is not None:  # ...else the workflow's, which Run uses
            self._show_modes(*self.document_modes, editable=True)
        else:
            for combo in (self.mode, self.global_mode):
                combo.setEnabled(False)
        if state is not None:
            self._fill_step_menu(state, next_node)
        stall = " · stalled" if (state or {}).get("stall") and not waiting else ""
        where = "" if live or state is None else " (read-only)"
        node = ((state or {}).get("nodes") or {}).get(next_node or "") or {}
        upcoming = f" · next: {node.get('label') or next_node[:8]}" \
            if active and interactive and next_node else ""
        text = f"  {waiting or status or 'no run'}{stall}{upcoming}{where}"
        self.step_action.setToolTip(f"Step: run {node.get('label') or 'the next'} turn (F10)"
                                    if upcoming else "Step (F10)")
        if text != self._state_text:
            self._state_text = text
            self.show_state(text)
            if waiting and not self.status_label.toolTip():
                self.status_label.setToolTip(f"The run: {text.strip()}\nThe Approvals inbox "
                                             "(Ctrl+Shift+A) lists what waits")

    def _fill_step_menu(self, state: dict, next_node: str | None = None) -> None:
        nodes = state.get("nodes") or {}
        inboxes = state.get("inboxes") or {}
        key = tuple((n, node.get("label"), len(inboxes.get(n) or []), n == next_node)
                    for n, node in nodes.items())
        if key == getattr(self, "_menu_key", None):  # rebuilt only when it changes
            return
        self._menu_key = key
        self.step_menu.clear()
        for node_id, node in nodes.items():
            waiting = len(inboxes.get(node_id) or [])
            mark = "  ▶ next" if node_id == next_node else ""
            action = self.step_menu.addAction(
                f"{node.get('label', node_id[:8])} ({waiting}){mark}")
            action.setEnabled(waiting > 0)
            action.triggered.connect(lambda _c=False, n=node_id: self.stepRequested.emit(n))
