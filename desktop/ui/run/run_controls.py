"""The run toolbar: Run, Run interactively, Step, Pause, Resume, Stop, and the mode switches."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QMenu, QToolBar, QToolButton, QWidget

TERMINAL = ("completed", "failed", "stopped")


class RunControls(QToolBar):
    """Buttons that ask for run commands; enabled according to the run's status."""

    runRequested = Signal(bool)  # interactive?
    stepRequested = Signal(object)  # node id or None
    pauseRequested = Signal()
    resumeRequested = Signal()
    stopRequested = Signal()
    modeRequested = Signal(str)
    globalModeRequested = Signal(str)

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
        self.mode = QComboBox()
        self.mode.setObjectName("runMode")
        self.mode.addItems(["AUTO", "INTERACTIVE"])
        self.mode.setToolTip("AUTO starts turns on its own; INTERACTIVE waits for Step")
        self.mode.activated.connect(lambda _i: self.modeRequested.emit(self.mode.currentText()))
        self.global_mode = QComboBox()
        self.global_mode.setObjectName("runGlobalMode")
        self.global_mode.addItems(["IMPLEMENTATION", "PLANNING"])
        self.global_mode.activated.connect(
            lambda _i: self.globalModeRequested.emit(self.global_mode.currentText()))
        self.addWidget(self.mode)
        self.addWidget(self.global_mode)
        self.status_label = QLabel("  no run")
        self.addWidget(self.status_label)
        self.set_state(None, live=False)

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

    def set_state(self, state: dict | None, *, live: bool, running: bool = False) -> None:
        """Enable what makes sense for the run's status (None: no run open)."""
        status = (state or {}).get("status")
        active = live and status not in TERMINAL and state is not None
        self.run_action.setEnabled(not active)
        self.run_interactive_action.setEnabled(not active)
        interactive = (state or {}).get("mode") == "INTERACTIVE"
        self.step_action.setEnabled(active and interactive)
        self.step_button.setEnabled(active and interactive)
        self.pause_action.setEnabled(active and status == "running")
        self.resume_action.setEnabled(active and (status == "paused" or not running))
        self.stop_action.setEnabled(active)
        self.mode.setEnabled(active)
        self.global_mode.setEnabled(active)
        if state is not None:
            self.mode.setCurrentText(str(state.get("mode", "AUTO")))
            self.global_mode.setCurrentText(str(state.get("globalMode", "IMPLEMENTATION")))
            self._fill_step_menu(state)
        stall = " · stalled" if (state or {}).get("stall") else ""
        where = "" if live or state is None else " (read-only)"
        text = f"  {status or 'no run'}{stall}{where}"
        if text != self.status_label.text():
            self.status_label.setText(text)

    def _fill_step_menu(self, state: dict) -> None:
        nodes = state.get("nodes") or {}
        inboxes = state.get("inboxes") or {}
        key = tuple((n, node.get("label"), len(inboxes.get(n) or []))
                    for n, node in nodes.items())
        if key == getattr(self, "_menu_key", None):  # rebuilt only when it changes
            return
        self._menu_key = key
        self.step_menu.clear()
        for node_id, node in nodes.items():
            waiting = len(inboxes.get(node_id) or [])
            action = self.step_menu.addAction(f"{node.get('label', node_id[:8])} ({waiting})")
            action.setEnabled(waiting > 0)
            action.triggered.connect(lambda _c=False, n=node_id: self.stepRequested.emit(n))
