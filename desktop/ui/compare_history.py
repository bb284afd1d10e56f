"""File > Compare With Commit: the open workflow's past versions in git, drawn as a diff.

Pick one commit to compare the open workflow with it, or two to compare them with each
other: the newer one opens in a tab of its own (untitled, so saving it asks where) with
the older drawn over it. The history is read by :mod:`desktop.graph.history`, which
leaves the repository as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.graph.errors import WorkflowLoadError
from desktop.graph.history import FlowCommit, HistoryError, flow_at, flow_commits
from desktop.ui.dialog_size import keep_readable

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


class CommitPicker(QDialog):
    """The commits that changed a workflow file; one or two may be picked."""

    def __init__(self, commits: list[FlowCommit], name: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.commits = commits
        self.setWindowTitle(f"Compare {name} With Commit")
        self.resize(760, 420)
        intro = QLabel(f"Pick one commit to compare the open <b>{name}</b> with it, or two "
                       "(Ctrl+click) to compare them with each other.")
        intro.setWordWrap(True)
        self.list = QTreeWidget()
        self.list.setRootIsDecorated(False)
        self.list.setAlternatingRowColors(True)
        self.list.setHeaderLabels(["Commit", "Date", "Author", "Message", "File"])
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        for commit in commits:
            item = QTreeWidgetItem([commit.short, commit.date[:16].replace("T", " "),
                                    commit.author, commit.subject, commit.path])
            item.setToolTip(0, commit.sha)
            self.list.addTopLevelItem(item)
        for column in range(4):
            self.list.resizeColumnToContents(column)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.compare = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.compare.setText("Compare")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.list.itemSelectionChanged.connect(self._enable)
        self.list.itemDoubleClicked.connect(lambda _i, _c: self.accept())
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.buttons)
        if commits:
            self.list.setCurrentItem(self.list.topLevelItem(0))
        self._enable()

    def picked(self) -> list[FlowCommit]:
        """The picked commits, newest first (the list's order)."""
        rows = sorted(self.list.indexOfTopLevelItem(item) for item in self.list.selectedItems())
        return [self.commits[r] for r in rows]

    def _enable(self) -> None:
        self.compare.setEnabled(1 <= len(self.list.selectedItems()) <= 2)
        self.compare.setToolTip("" if self.compare.isEnabled() else "pick one or two commits")


def ask_commits(window: QWidget, commits: list[FlowCommit], name: str) -> list[FlowCommit]:
    """Ask which commits to compare; [] when cancelled."""
    picker = CommitPicker(commits, name, window)
    picker.setWindowModality(Qt.WindowModality.WindowModal)
    return picker.picked() if picker.exec() == QDialog.DialogCode.Accepted else []


def compare_with_commit(window: EditorWindow) -> bool:
    """Ask for one or two commits of the open workflow and draw the comparison."""
    path = window.file.path
    if path is None:
        window.show_error("Cannot compare with a commit",
                          "This workflow is not saved yet. Save it inside a git repository "
                          "and commit it; its history is read from git.")
        return False
    try:
        commits = flow_commits(path)
    except HistoryError as exc:
        window.show_error("Cannot compare with a commit", str(exc))
        return False
    if not commits:
        window.show_error("Cannot compare with a commit",
                          f"{path.name} has no commits yet: commit it (git add, git commit) "
                          "to compare with its past versions.")
        return False
    picked = window.ask.commits(commits, path.name)
    if not picked:
        return False
    try:
        docs = [flow_at(path, commit) for commit in picked]
    except WorkflowLoadError as exc:
        window.show_error("Cannot compare with a commit",
                          "\n".join(str(p) for p in exc.problems))
        return False
    if len(picked) == 1:
        return window.compare.with_document(docs[0], _name(picked[0]))
    newer, older = picked
    target = window.files.document_window()
    target.file.new(docs[0])
    target.show()
    target.message(f"{path.name} as it was at {newer.short}: save it to keep it")
    return target.compare.with_document(docs[1], _name(older))


def _name(commit: FlowCommit) -> str:
    """``review.flow.yaml at abc1234``: the name the file had at that commit."""
    return f"{commit.path.rsplit('/', 1)[-1]} at {commit.short}"
