"""A merge that conflicts, decided in the app: the files and their hunks, a side per file,
the result edited by hand, or the whole of it handed to the node's agent.

The request is a ``merge`` approval's (desktop/contract/merge.py). Each conflicting file
is a row with Ours, Theirs and Edit buttons and what was chosen for it; the selected
file's hunks show both sides and their base, under its name, and Edit opens the file as it
stands in the conflicted worktree (rebuilt from its hunks when the worktree cannot be read)
in an editor whose text, once its conflict markers are gone, is the file's resolution.
Editing another file keeps the text being edited: its result when no marker is left, else a
draft that Edit brings back. Resolve sends the
choices once every file has one; Hand to agent sends those made so far and gives the
rest to the agent's turn; Undo merge denies it. The decision goes to a resolver callable
(as the approval dialog's), which may answer later (an awaitable).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.contract.merge import has_conflict_markers
from desktop.ui.dialog_size import keep_readable
from desktop.ui.run.decision_dialog import DecisionDialog, error_label
from desktop.views.approval_text import file_note

SIDES = ("ours", "theirs")


def hunks_text(entry: dict[str, Any]) -> str:
    """A file's hunks, both sides of each, for reading."""
    if entry.get("binary"):
        return "A binary file: take one side whole."
    parts = []
    for hunk in entry.get("hunks") or []:
        # the base says what each side changed: without it "ours" and "theirs" are two
        # texts to compare with nothing
        base = hunk.get("base")
        before = "" if base is None else f"── the base (before both):\n{base}"
        parts.append(f"── line {hunk.get('line')} ── ours (this node's branch):\n"
                     f"{hunk.get('ours', '')}{before}"
                     f"── theirs (the sender's):\n{hunk.get('theirs', '')}")
    if entry.get("truncated"):
        parts.append("(more in the file itself)")
    return "\n".join(parts) or "No hunks: take a side, or edit the file."


def _rebuilt(entry: dict[str, Any]) -> str:
    """Something to edit when the worktree cannot be read: each hunk's two sides."""
    return "".join(f"<<<<<<< ours\n{h.get('ours', '')}=======\n{h.get('theirs', '')}"
                   ">>>>>>> theirs\n" for h in entry.get("hunks") or [])


class MergeDialog(DecisionDialog):
    """One merge approval: a decision per file, or the agent (see the module)."""

    refused_text = "The merge could not be decided (it may be decided already)."

    def __init__(self, request: dict, resolver: Any, node_label: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.request = request
        self.resolver = resolver
        self.merge: dict[str, Any] = request.get("merge") or {}
        self.files: list[dict[str, Any]] = list(self.merge.get("files") or [])
        self.sides: dict[str, str] = {}
        self.contents: dict[str, str] = {}
        self.drafts: dict[str, str] = {}  # edited texts with markers left, put aside
        self.current: str | None = None  # the file whose hunks are shown
        self.editing: str | None = None  # the file in the editor (maybe not the shown one)
        self.setWindowTitle(f"Merge conflict: {node_label or 'node'}")
        self.setModal(False)
        head = QLabel(f"Merging <b>{self.merge.get('source')}</b> (from "
                      f"{self.merge.get('sender') or '?'}) into <b>{self.merge.get('target')}"
                      f"</b> stopped at conflicts. The worktree {self.merge.get('worktree')} "
                      "holds the files with their conflict markers.")
        head.setWordWrap(True)
        self.rows = QWidget()
        grid = QGridLayout(self.rows)
        grid.setContentsMargins(0, 0, 0, 0)
        self.buttons: dict[str, dict[str, QPushButton]] = {}
        self.names: dict[str, QPushButton] = {}
        self.chosen: dict[str, QLabel] = {}
        for row, entry in enumerate(self.files):
            self._row(grid, row, entry)
        self.shown = QLabel()  # whose hunks these are: two files' may look alike
        self.hunks = QPlainTextEdit()
        self.hunks.setReadOnly(True)
        self.hunks.setFont(QFont("monospace"))
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFont("monospace"))
        self.editor.setPlaceholderText("Edit a file to write its result here")
        self.editor.textChanged.connect(self._update)
        self.use_edit = QPushButton("Use this text")
        self.use_edit.setEnabled(False)
        self.use_edit.clicked.connect(self.use_edited)
        split = QSplitter()
        reading = QWidget()
        box = QVBoxLayout(reading)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.shown)
        box.addWidget(self.hunks)
        split.addWidget(reading)
        editing = QWidget()
        box = QVBoxLayout(editing)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.editor)
        box.addWidget(self.use_edit)
        split.addWidget(editing)
        self.error = error_label()
        self.resolve_button = QPushButton("&Resolve")
        self.agent_button = QPushButton("Hand to &agent")
        self.deny_button = QPushButton("&Undo merge")
        self.agent_button.setEnabled(bool(self.merge.get("agent", True)))
        self.agent_button.setToolTip("The node's agent resolves the files not decided here, "
                                     "in its turn, with the conflict in its prompt")
        self.deny_button.setToolTip("Undo the merge; the run pauses for you to merge by hand")
        self.resolve_button.clicked.connect(self.resolve)
        self.agent_button.clicked.connect(self.hand_to_agent)
        self.deny_button.clicked.connect(self.deny)
        actions = QHBoxLayout()
        for button in (self.resolve_button, self.agent_button, self.deny_button):
            actions.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(self.rows)
        layout.addWidget(split, 1)
        layout.addWidget(self.error)
        layout.addLayout(actions)
        if self.files:
            self.show_file(str(self.files[0].get("path")))
        self._update()
        self.resize(900, 600)

    @property
    def approval_id(self) -> str:
        return str(self.request.get("approvalId"))

    def _row(self, grid: QGridLayout, row: int, entry: dict[str, Any]) -> None:
        path = str(entry.get("path"))
        name = QPushButton(file_note(entry))
        name.setFlat(True)
        name.setToolTip("Show its hunks")
        name.clicked.connect(lambda _c=False, p=path: self.show_file(p))
        grid.addWidget(name, row, 0)
        self.names[path] = name
        self.buttons[path] = {}
        for column, side in enumerate(SIDES, start=1):
            button = QPushButton("Ours" if side == "ours" else "Theirs")
            button.setCheckable(True)
            who = "this node's branch" if side == "ours" else "the sender"
            button.setToolTip(f"Take the file whole as {who} has it" if entry.get(side, True)
                              else f"Take {side}: the file is deleted there")
            button.clicked.connect(lambda _c=False, p=path, s=side: self.take(p, s))
            grid.addWidget(button, row, column)
            self.buttons[path][side] = button
        edit = QPushButton("Edit…")
        edit.setEnabled(not entry.get("binary"))
        edit.clicked.connect(lambda _c=False, p=path: self.edit(p))
        grid.addWidget(edit, row, 3)
        self.buttons[path]["edit"] = edit
        self.chosen[path] = QLabel("—")
        grid.addWidget(self.chosen[path], row, 4)

    def _entry(self, path: str) -> dict[str, Any]:
        return next(e for e in self.files if str(e.get("path")) == path)

    def show_file(self, path: str) -> None:
        """Show a file's hunks."""
        self.current = path
        entry = self._entry(path)
        self.shown.setText(f"<b>{escape(file_note(entry))}</b>: ours, the base, theirs")
        for each, name in self.names.items():  # the row whose hunks are shown stands out
            font = name.font()
            font.setBold(each == path)
            name.setFont(font)
        self.hunks.setPlainText(hunks_text(entry))

    def take(self, path: str, side: str) -> None:
        """Take one side of ``path`` whole (pressed again: undecided)."""
        if self.sides.get(path) == side:
            del self.sides[path]
        else:
            self.sides[path] = side
            self.contents.pop(path, None)
            self.drafts.pop(path, None)
            if path == self.editing:  # the side replaces the text being edited
                self._close_editor()
        self.show_file(path)
        self._update()

    def edit(self, path: str) -> None:
        """Put the file as it stands in the worktree (else rebuilt) into the editor: its
        draft or its edited text when it has one. The text being edited for another file is
        kept first (see the module); for this file it stays as it is."""
        self.show_file(path)
        if path == self.editing:
            self.editor.setFocus()
            return
        self._put_aside()
        draft = self.drafts.pop(path, None)
        if draft is not None:
            text = draft
        elif path in self.contents:
            text = self.contents[path]
        else:
            try:
                text = (Path(str(self.merge.get("worktree"))) / path).read_text("utf-8")
            except (OSError, UnicodeDecodeError):
                text = _rebuilt(self._entry(path))
        self.editing = path
        self.editor.setPlainText(text)
        self.editor.document().setModified(draft is not None)  # a draft is not used yet
        self.use_edit.setEnabled(True)
        self.use_edit.setText(f"Use this text for {path}")
        self.editor.setFocus()
        self._update()

    def _put_aside(self) -> None:
        """The text being edited, changed since it was used, leaves the editor kept: as
        its file's result when no marker is left, else as its draft."""
        if not self._pending():
            return
        assert self.editing is not None
        text = self.editor.toPlainText()
        if has_conflict_markers(text):
            self.drafts[self.editing] = text
        else:
            self.use_edited()

    def _close_editor(self) -> None:
        self.editing = None
        self.editor.clear()
        self.editor.document().setModified(False)
        self.use_edit.setEnabled(False)
        self.use_edit.setText("Use this text")

    def _pending(self) -> bool:
        """The editor holds changes not yet used for its file."""
        return self.editing is not None and self.editor.document().isModified()

    def use_edited(self) -> bool:
        """The editor's text becomes its file's result (no markers left): the file put in
        the editor, whichever file's hunks are shown since. False: it still has markers."""
        text = self.editor.toPlainText()
        path = self.editing
        if path is None:
            return False
        if has_conflict_markers(text):
            self.error.setText(f"{path} still has conflict markers; remove them first.")
            return False
        self.error.clear()
        self.contents[path] = text if text.endswith("\n") or not text else text + "\n"
        self.sides.pop(path, None)
        self.editor.document().setModified(False)
        self._update()
        return True

    def _update(self) -> None:
        for path, buttons in self.buttons.items():
            side = self.sides.get(path)
            for name in SIDES:
                buttons[name].setChecked(side == name)
                # a checked button's fill differs from an unchecked one's by a shade in
                # either theme: the mark says which side is taken
                buttons[name].setText(("✓ " if side == name else "") + name.capitalize())
            editing = path == self.editing and self._pending()
            self.chosen[path].setText(side or ("editing" if editing else "edited"
                                               if path in self.contents else "draft"
                                               if path in self.drafts else "—"))
        # the text being edited counts: Resolve uses it (and says so if it has markers)
        every = all(str(e.get("path")) in self.sides or str(e.get("path")) in self.contents
                    or (str(e.get("path")) == self.editing and self._pending())
                    for e in self.files)
        self.resolve_button.setEnabled(every and bool(self.files))

    def choice(self, agent: bool = False) -> dict[str, Any]:
        """The MergeChoice (wire form) made so far."""
        return {"files": dict(self.sides), "contents": dict(self.contents), "agent": agent}

    def resolve(self) -> None:
        """Send a side or a text for every file, the editor's too when it was changed
        since it was last used (pressing Use this text first is not needed)."""
        if self._pending() and not self.use_edited():
            return
        self._send("approved", self.choice())

    def hand_to_agent(self) -> None:
        """Send the choices made so far; the agent resolves the rest in its turn (a text
        being edited is one of them once its markers are gone)."""
        if self._pending() and not has_conflict_markers(self.editor.toPlainText()):
            self.use_edited()
        self.error.clear()
        self._send("approved", self.choice(agent=True))

    def deny(self) -> None:
        """Undo the merge."""
        self._send("denied", None)

    def _send(self, status: str, merge: dict[str, Any] | None) -> None:
        self.send_decision(status, lambda: self.resolver(self.approval_id, status, None, None,
                                                         merge=merge))

    def set_deciding(self, deciding: bool) -> None:
        for button in (self.resolve_button, self.agent_button, self.deny_button):
            button.setEnabled(not deciding)
        if not deciding:
            self.agent_button.setEnabled(bool(self.merge.get("agent", True)))
            self._update()
