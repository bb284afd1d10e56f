"""The questions asked before a tab, a window or the app closes over unsaved work or a live
run: what to do with the run (keep it running in the background, or stop it), and,
when several documents go at once, one question for all of them.

They are plain modal dialogs; the windows call them through their ``ask`` part
(desktop/ui/window_questions.py) so tests can answer instead (see desktop/ui/closing.py
for what the answers do).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.dialog_size import keep_readable, readable_box
from desktop.wording import plural


@dataclass(frozen=True)
class LiveRun:
    """A live run a closing tab or window shows, as the questions name it."""

    name: str
    """Its workflow's name."""
    run_id: str
    waiting: int = 0
    """How many of its requests wait for a person's decision."""
    step: str = ""
    """The node whose turn Step runs next, when the (INTERACTIVE) run waits for Step;
    empty when it does not."""

    def waits_for(self) -> str:
        """``1 approval``, ``Step (Writer's turn is next)``, or empty: what only a person
        can move the run on from."""
        if self.waiting:
            return plural(self.waiting, "approval")
        return f"Step ({self.step}'s turn is next)" if self.step else ""

    def listed(self) -> str:
        """``Gated (run 1a2b3c4d), waiting for 1 approval``: one line of a list of runs."""
        note = f", waiting for {self.waits_for()}" if self.waits_for() else ""
        return f"{self.name} (run {self.run_id[:8]}){note}"


def live_question(run: LiveRun) -> str:
    """The question before one live run's tab closes: a sentence about that run."""
    waits = f" and waits for {run.waits_for()}" if run.waits_for() else ""
    return f"“{run.name}” (run {run.run_id[:8]}) is still running{waits}. Close its tab anyway?"


def keep_note(runs: list[LiveRun]) -> str:
    """Where runs left running are found again; the Approvals inbox only when one of them
    waits there: for a decision (the inbox lists requests) or for Step (it lists the
    run)."""
    asks = any(run.waiting for run in runs)
    steps = any(run.step and not run.waiting for run in runs)
    if len(runs) == 1:
        inbox = (", and its requests in the Approvals inbox of every window" if asks else
                 ", and the Approvals inbox of every window lists it as waiting for Step"
                 if steps else "")
        return f"Kept running, it stays in Run history{inbox}: open it again from there."
    listed = " and ".join(what for what, shown in (
        ("their requests", asks), ("those waiting for Step", steps)) if shown)
    inbox = f", and {listed} in the Approvals inbox of every window" if listed else ""
    return f"Kept running, they stay in Run history{inbox}: open them again from there."


@dataclass(frozen=True)
class CloseAnswer:
    """What to do before closing: save unsaved documents (else discard them), and stop
    live runs (else leave them running in the service)."""

    save: bool = True
    stop: bool = False


def _question(parent: QWidget | None, icon: QMessageBox.Icon, title: str, text: str,
              note: str) -> QMessageBox:
    box = QMessageBox(parent)
    box.setIcon(icon)
    box.setWindowTitle(title)
    box.setText(text)
    box.setInformativeText(note)
    return readable_box(box)  # a short question wrapped its note into a narrow column


def ask_live_run(parent: QWidget | None, run: LiveRun) -> str:
    """``"keep"``, ``"stop"`` or ``"cancel"`` for one tab whose run is live."""
    box = _question(parent, QMessageBox.Icon.Question, "The run is still live",
                    live_question(run), keep_note([run]))
    keep = box.addButton("&Keep running in the background", QMessageBox.ButtonRole.AcceptRole)
    stop = box.addButton("&Stop the run", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(keep)
    box.exec()
    clicked = box.clickedButton()
    return "keep" if clicked is keep else "stop" if clicked is stop else "cancel"


class ClosingDialog(QDialog):
    """One question for everything that closes: unsaved documents and live runs."""

    def __init__(self, unsaved: list[str], live: list[LiveRun], quitting: bool,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.setWindowTitle("Quit Agent Canvas?" if quitting else "Close the window?")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 12)
        layout.setSpacing(10)
        # one document or run is "it", several are "them"
        them = "them" if len(unsaved) > 1 else "it"
        self.save = self._choice(layout, "Unsaved changes", unsaved,
                                 (f"&Save {them}", f"&Discard {them}")) if unsaved else None
        them = "them" if len(live) > 1 else "it"
        self.keep = self._choice(layout, "Live runs" if len(live) > 1 else "Live run",
                                 [run.listed() for run in live],
                                 (f"&Keep {them} running in the background", f"S&top {them}")
                                 ) if live else None
        if live:
            note = QLabel(keep_note(live))
            note.setWordWrap(True)
            note.setStyleSheet("color: palette(mid);")
            layout.addWidget(note)
        buttons = QDialogButtonBox()
        buttons.addButton("&Quit" if quitting else "&Close",
                          QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.setMinimumWidth(460)

    def _choice(self, layout: QVBoxLayout, title: str, names: list[str],
                options: tuple[str, str]) -> QRadioButton:
        heading = QLabel(f"<b>{title}</b>")
        listed = QLabel("<br>".join(f"• {name}" for name in names))
        listed.setContentsMargins(12, 0, 0, 0)
        layout.addWidget(heading)
        layout.addWidget(listed)
        group = QButtonGroup(self)
        first = QRadioButton(options[0])
        second = QRadioButton(options[1])
        for button in (first, second):
            button.setContentsMargins(12, 0, 0, 0)
            group.addButton(button)
            layout.addWidget(button)
        first.setChecked(True)
        return first

    def answer(self) -> CloseAnswer:
        """The choices made (meaningful once accepted)."""
        return CloseAnswer(save=self.save is None or self.save.isChecked(),
                           stop=self.keep is not None and not self.keep.isChecked())


def ask_closing(parent: QWidget | None, unsaved: list[str], live: list[LiveRun],
                quitting: bool) -> CloseAnswer | None:
    """Ask once about every unsaved document and live run; None when cancelled."""
    dialog = ClosingDialog(unsaved, live, quitting, parent)
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    answer = dialog.answer() if accepted else None
    dialog.deleteLater()
    return answer


STOP_NOTE = ("Every agent of the run is ended now. A stopped run does not resume; "
             "Fork from here (Ctrl+K) goes on from any point of it.")


def stop_question(parent: QWidget | None, name: str, stop_run: Callable[[], object]
                  ) -> QMessageBox:
    """The question before a run is stopped from the toolbar, its shortcut or a banner:
    Enter stops (an agent doing harm is one more key away), Esc keeps it running. Call
    its ``open()``; ``stop_run`` is called when the answer is stop."""
    box = _question(parent, QMessageBox.Icon.Warning, "Stop the run?", f"Stop {name}?",
                    STOP_NOTE)
    stop = box.addButton("&Stop the run", QMessageBox.ButtonRole.AcceptRole)
    box.addButton("&Keep it running", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(stop)
    box.buttonClicked.connect(lambda clicked: stop_run() if clicked is stop else None)
    return box
