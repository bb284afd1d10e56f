"""Banners for runs that need the user: a caught stall (with its evidence) and failed nodes."""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.dialog_size import keep_readable
from desktop.views.notices import NodeFailed, RunStalled, StallEnded
from desktop.views.stall_text import stall_detail
from desktop.views.state import node_labels

TAIL_LINES = 20
SAMPLE_LINES = 8  # of a repeated output shown in the banner; more scrolls


def read_tail(path: Path, lines: int = TAIL_LINES, limit: int = 64 * 1024) -> str:
    """The last ``lines`` lines of a text file ('' if it is missing)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            data = fh.read()
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])


def _mono(text: str) -> QPlainTextEdit:
    """A read-only monospace box as tall as ``text`` needs, up to SAMPLE_LINES lines (a
    banner over the canvas must not hide it for a one-line output)."""
    box = QPlainTextEdit(text)
    box.setReadOnly(True)
    box.setFont(QFont("monospace"))
    lines = max(1, min(SAMPLE_LINES, text.count("\n") + 1))
    box.setMaximumHeight(box.fontMetrics().lineSpacing() * lines
                        + 2 * (box.frameWidth() + round(box.document().documentMargin())) + 4)
    return box


class InstructionsDialog(QDialog):
    """Edit a node's instructions before the run resumes."""

    def __init__(self, label: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.setWindowTitle(f"Instructions of {label}")
        self.editor = QPlainTextEdit(text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Save and resume")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.editor)
        layout.addWidget(buttons)
        self.resize(560, 360)


class StallBanner(QFrame):
    """Shown on ``run.stalled``: which signal repeated, the repeats side by side, actions."""

    resumeRequested = Signal()
    stopRequested = Signal()
    instructionsChanged = Signal(str, str)  # node id, new instructions (then resume)

    def __init__(self, run_dir: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_dir = run_dir
        self.node_labels: dict[str, str] = {}
        self.instructions: dict[str, str] = {}
        self.stall: dict | None = None
        self.setObjectName("stallBanner")
        self.setStyleSheet("#stallBanner { background: #fff4e5; border: 1px solid #f2994a; }")
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.samples = QHBoxLayout()
        self.resume_button = QPushButton("&Resume")
        self.edit_button = QPushButton("&Edit instructions and resume")
        self.stop_button = QPushButton("&Stop")
        self.resume_button.clicked.connect(self.resumeRequested)
        self.stop_button.clicked.connect(self.stopRequested)
        self.edit_button.clicked.connect(self.edit_instructions)
        actions = QHBoxLayout()
        actions.addWidget(self.resume_button)
        actions.addWidget(self.edit_button)
        actions.addWidget(self.stop_button)
        actions.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(self.samples)
        layout.addLayout(actions)
        self.hide()

    def name_nodes(self, state: dict | None) -> None:
        """Take the nodes' names and instructions from the run's state."""
        state = state or {}
        self.node_labels = node_labels(state)
        self.instructions = {node_id: (config or {}).get("instructions", "")
                             for node_id, config in (state.get("nodeConfigs") or {}).items()}

    def stalled(self, notice: RunStalled) -> None:
        """The run paused on a stall: show its evidence."""
        self.show_stall(notice.stall)

    def ended(self, _notice: StallEnded | None = None) -> None:
        """The run resumed or ended: the stall is over."""
        self.stall = None
        self.hide()

    def set_state(self, state: dict | None) -> None:
        """Show the stall a reopened run is in, if any."""
        state = state or {}
        self.name_nodes(state)
        stall = state.get("stall")
        if stall and state.get("status") == "paused":
            self.show_stall({"nodeId": stall.get("nodeId"), "reason": stall.get("reason"),
                             "evidence": stall.get("evidence") or {}})
        else:
            self.hide()

    def show_stall(self, event: dict) -> None:
        """Fill the banner from a ``run.stalled`` event and show it."""
        self.stall = event
        node = self.node_labels.get(event.get("nodeId") or "", "a node")
        self.title.setText(f"<b>Run paused: {node} looks stuck.</b> {stall_detail(event)}.")
        while self.samples.count():
            widget = self.samples.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        for i, text in enumerate(self.sample_texts(event)):
            box = QVBoxLayout()
            holder = QWidget()
            holder.setLayout(box)
            box.setContentsMargins(0, 0, 0, 0)
            box.addWidget(QLabel(f"repeat {i + 1}"))
            box.addWidget(_mono(text))
            self.samples.addWidget(holder)
        self.show()

    def sample_texts(self, event: dict) -> list[str]:
        """The repeated outputs, or diffs when the diff repeated, oldest first."""
        evidence = event.get("evidence") or {}
        runs = evidence.get("agentRunIds") or []
        if evidence.get("signal") == "diff" and self.run_dir is not None:
            diffs = [read_tail(self.run_dir / "agents" / r / "diff.patch", 200) for r in runs]
            if any(diffs):
                return diffs
        if evidence.get("signal") == "verification":
            ver = evidence.get("verification") or {}
            outs = [str(o) for o in evidence.get("outputs") or []]
            return [*outs, f"$ {ver.get('command', '')}\n{ver.get('outputTail', '')}"]
        return [str(o) for o in evidence.get("outputs") or []]

    def edit_instructions(self) -> InstructionsDialog | None:
        """Ask for new instructions of the stalled node; on save, emit and resume."""
        if not self.stall:
            return None
        node_id = self.stall.get("nodeId") or ""
        dialog = InstructionsDialog(self.node_labels.get(node_id, node_id[:8]),
                                    self.instructions.get(node_id, ""), self)
        dialog.accepted.connect(
            lambda: self.instructionsChanged.emit(node_id, dialog.editor.toPlainText()))
        dialog.open()
        return dialog


class FailureBanner(QFrame):
    """Failed nodes: why, with the tail of the agent's stderr; and, once the run has
    failed, Retry: resuming it runs the failed turn again with the same input."""

    retryRequested = Signal()

    def __init__(self, run_dir: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_dir = run_dir
        self.node_labels: dict[str, str] = {}
        self.failures: dict[str, dict] = {}
        self.setObjectName("failureBanner")
        self.setStyleSheet("#failureBanner { background: #fdecea; border: 1px solid #eb5757; }")
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.tail = _mono("")
        self.retry_button = QPushButton("&Retry")
        self.retry_button.setToolTip("Resume the failed run: the failed turn runs again with "
                                     "the same input (fix what made it fail first)")
        self.retry_button.clicked.connect(self.retryRequested)
        self.retry_button.hide()
        close = QPushButton("Dismiss")
        close.clicked.connect(self.hide)
        row = QHBoxLayout()
        row.addWidget(self.title, 1)
        row.addWidget(self.retry_button)
        row.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.tail)
        self.hide()

    def name_nodes(self, state: dict | None) -> None:
        """Take the nodes' names from the run's state."""
        self.node_labels = node_labels(state)

    def offer_retry(self, offered: bool) -> None:
        """Show Retry while the run has failed and the service can resume it; once the
        run goes on (resumed), the failure it showed is over and the banner goes."""
        if self.retry_button.isVisibleTo(self) and not offered:
            self.hide()
        self.retry_button.setVisible(offered)

    def failed(self, notice: NodeFailed) -> None:
        """A turn or the run failed: say why, with the stderr of the agent that ran."""
        agent_run_id = (notice.agent_run_id
                        or self.failures.get(notice.node_id, {}).get("agentRunId"))
        self.show_failure(notice.node_id, notice.reason, agent_run_id)

    def show_failure(self, node_id: str, reason: str, agent_run_id: str | None) -> None:
        """Fill the banner for one failure and show it."""
        self.failures[node_id] = {"reason": reason, "agentRunId": agent_run_id}
        label = self.node_labels.get(node_id, node_id[:8] or "run")
        # the run's failure names its node first ("Builder: ..."): said once here
        said = escape(reason.removeprefix(f"{label}: "))  # git's <path> is text, not markup
        self.title.setText(f"<b>{escape(label)} failed:</b> {said}")
        # a turn that failed before its agent started (its worktree could not be made)
        # has no stderr to show
        self.tail.setVisible(bool(agent_run_id))
        tail = ""
        if agent_run_id and self.run_dir is not None:
            tail = read_tail(self.run_dir / "agents" / agent_run_id / "agent-stderr.txt")
        self.tail.setPlainText(tail or "(no stderr output)")
        self.show()
