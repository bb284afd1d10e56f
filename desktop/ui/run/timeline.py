"""The replay scrubber: drag to event N and every view shows the run as it was then."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QSlider, QToolButton, QWidget

from desktop.views.replay import EventSource, ReplayState

SLIDER_MIN_WIDTH = 240  # narrower, a horizontal slider reads as a checkbox
LONGEST_TYPE = "message.assistant.thinking.final"  # the widest event type name


def position_text(seq: int, total: int, event: dict | None) -> str:
    """What the label says at event ``seq`` of ``total``."""
    what = f" · {event.get('type')} · {str(event.get('ts', ''))[11:19]}" if event else ""
    return f"event {seq:,} / {total:,}{what}"


class TimelineScrubber(QWidget):
    """A slider over a run's events; emits the folded state at the chosen event."""

    stateAt = Signal(int, object)  # seq, run state dict (None before run.created)
    forkRequested = Signal(int)  # the seq shown: continue the run from there as a new run

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.replay: ReplayState | None = None
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("timelineSlider")
        self.slider.setEnabled(False)
        self.slider.setPageStep(50)
        self.slider.setMinimumWidth(SLIDER_MIN_WIDTH)
        self.slider.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.play_button = QToolButton()
        self.play_button.setText("▶")
        self.play_button.setToolTip("Play the run from here")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self._play)
        self.label = QLabel("no run")
        self.label.setObjectName("timelineLabel")
        self._fit_label(0)
        # an action, so the command palette (Ctrl+K) offers it too while a run is replayed
        self.fork_action = QAction("Fork from here…", self)
        self.fork_action.setToolTip("Continue the run from this event as a new run, with "
                                    "changed instructions, model, provider or handoff; the "
                                    "events before it are copied, not run again")
        self.fork_action.setEnabled(False)
        self.fork_action.triggered.connect(lambda: self.forkRequested.emit(self.current))
        self.fork_button = QToolButton()
        self.fork_button.setObjectName("forkFromHere")
        self.fork_button.setDefaultAction(self.fork_action)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addWidget(self.play_button)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.label)
        layout.addWidget(self.fork_button)
        # dragging fast must not fold on every pixel: settle on the last value each frame
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(16)
        self._settle.timeout.connect(self._emit_current)
        self.slider.valueChanged.connect(lambda _v: self._settle.start())
        self._player = QTimer(self)
        self._player.setInterval(50)
        self._player.timeout.connect(self._tick)
        self.current: int = 0

    def load(self, run: Path | EventSource) -> None:
        """Scrub over this run, a folder or its events (opens at its last event)."""
        if self.replay is not None:
            self.replay.close()
        self.replay = ReplayState(run)
        self._fit_label(self.replay.total)
        self.slider.setEnabled(True)
        self.fork_action.setEnabled(True)
        self.slider.setRange(0, self.replay.total)
        self.slider.setValue(self.replay.total)
        self._emit_current()

    def seek(self, seq: int) -> dict | None:
        """Jump to event ``seq`` now; returns the state there."""
        self.slider.blockSignals(True)
        self.slider.setValue(seq)
        self.slider.blockSignals(False)
        return self._emit_current()

    def _emit_current(self) -> dict | None:
        if self.replay is None:
            return None
        seq = self.slider.value()
        self.current = seq
        state = self.replay.state_at(seq)
        text = position_text(seq, self.replay.total, self.replay.event(seq))
        metrics = self.label.fontMetrics()
        self.label.setText(metrics.elidedText(text, Qt.TextElideMode.ElideRight,
                                              self.label.width()))
        self.label.setToolTip(text)
        self.stateAt.emit(seq, state)
        return state

    def _fit_label(self, total: int) -> None:
        """One width for every position of a run of ``total`` events: the widest text's
        (digits are all 8s, the longest event type), so the slider never jumps."""
        widest = position_text(int("8" * len(str(max(total, 1)))), int("8" * len(
            str(max(total, 1)))), {"type": LONGEST_TYPE, "ts": "2000-01-01T88:88:88"})
        self.label.setFixedWidth(self.label.fontMetrics().horizontalAdvance(widest) + 8)

    def _play(self, on: bool) -> None:
        self.play_button.setText("⏸" if on else "▶")
        if on:
            if self.slider.value() >= self.slider.maximum():
                self.slider.setValue(0)
            self._player.start()
        else:
            self._player.stop()

    def _tick(self) -> None:
        if self.slider.value() >= self.slider.maximum():
            self.play_button.setChecked(False)
            return
        self.slider.setValue(self.slider.value() + 1)

    def close_run(self) -> None:
        """Forget the run."""
        self._player.stop()
        if self.replay is not None:
            self.replay.close()
            self.replay = None
        self.slider.setEnabled(False)
        self.fork_action.setEnabled(False)
        self.label.setText("no run")
