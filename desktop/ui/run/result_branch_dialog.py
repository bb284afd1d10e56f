"""The Create branch dialog of the Result view: the new branch's name, checked against
git's rule for branch names when OK is pressed. A name git refuses keeps the dialog open,
with the name as typed and what is wrong with it; a name the service refuses after (one
taken meanwhile) opens it again the same way.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtWidgets import QDialog, QInputDialog, QLineEdit, QWidget

from desktop.views.branch_check import BadBranchName, check_format

PROMPT = "Name of the new branch (made on your HEAD; your checkout is not touched):"


def _where(repo: str | None) -> Path:
    """A folder for git to check a name in: the repository when it is on this machine
    (a result of a service on another machine names a folder there), else any."""
    folder = Path(repo) if repo else None
    return folder if folder is not None and folder.is_dir() else Path(tempfile.gettempdir())


class BranchDialog(QInputDialog):
    """Asks for a branch name; ``textValueSelected`` carries only a name git accepts."""

    def __init__(self, parent: QWidget | None, name: str, repo: str | None = None,
                 problem: str = "") -> None:
        super().__init__(parent)
        self.where = _where(repo)
        self.setWindowTitle("Create branch")
        self.setTextEchoMode(QLineEdit.EchoMode.Normal)
        self.setTextValue(name)
        self.setOkButtonText("Create branch")
        self.problem = ""
        self.say(problem)

    def say(self, problem: str) -> None:
        """Show what is wrong with the name (none: ``problem`` empty) under the prompt."""
        self.problem = problem[:1].upper() + problem[1:]
        self.setLabelText(PROMPT + (f"\n\n{self.problem}." if problem else ""))

    def done(self, result: int) -> None:
        """OK closes only with a name git accepts; the dialog says why not, and keeps
        the name as typed to be corrected."""
        if result == QDialog.DialogCode.Accepted:
            name = self.textValue().strip()
            try:
                check_format(self.where, name)
            except BadBranchName as exc:
                self.say(str(exc))
                return
            self.setTextValue(name)
        super().done(result)
