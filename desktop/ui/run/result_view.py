"""The Result view: a finished run's result branch, its change per file against the run's
base with accept/reject for each file, one file's diff, and the ways to take it: onto
the user's working tree (and undoing that), as a new branch, and a pull request of that
branch.

The widget only shows and asks; :class:`~desktop.ui.run.result_actions.ResultActions`
talks to the service and calls back with what it answered.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.run.diff_parse import parse_diff
from desktop.ui.run.patch_view import PatchView
from desktop.ui.run.result_text import (
    applied_line,
    collision_text,
    collision_tip,
    default_branch,
    outcome_text,
    replay_text,
    undo_collision_text,
    undo_tip,
    undone_text,
)
from desktop.ui.theme import LIGHT, Theme
from desktop.views.result import in_scratch, undoable
from desktop.wording import plural

# a banner per kind of note: the theme's colours of its background and border (the
# backgrounds are the diff's, so a banner reads like the lines it speaks of)
_NOTE = {"ok": ("diff_add", "ok"), "collision": ("diff_del", "error"),
         "info": ("diff_hunk", "accent"), "error": ("diff_chg", "warning")}
# a file's change by the theme colour it is written in (another change: muted)
_STATUS = {"added": "ok", "deleted": "error", "modified": "warning"}
MESSAGE_CHARS = 90
"""About how many characters a line of a message's explanation holds before it wraps."""
QWIDGETSIZE_MAX = (1 << 24) - 1
"""Qt's "no maximum" for a widget's size."""
SECRET_TIP = ("holds the value of a secret an agent was given: reject it to apply the rest, "
              "or take the value out on the result's branch")
APPLIED_SHOWN = 3
"""How many of the applications so far are listed under the files (the latest; the
rest are in the tooltip): each took a line from the diff, until its tabs were cut."""


class ResultView(QWidget):
    """The result of the run on show; its buttons ask, the owner answers."""

    refreshRequested = Signal()
    fileSelected = Signal(str)  # a file's path: show its diff
    applyRequested = Signal(object)  # the accepted files (None: every file)
    branchRequested = Signal(object, str)  # the accepted files (None: all), the branch name
    pullRequestRequested = Signal(str)  # the branch to push and open a pull request of
    undoRequested = Signal()  # take back the latest apply to the working tree
    allowSecretsRequested = Signal(object, object)
    """Apply again though files hold a secret: the accepted files (None: all) and the
    branch to make (None: onto the working tree), as the refused request had them."""

    def __init__(self, parent: QWidget | None = None, theme: Theme = LIGHT) -> None:
        super().__init__(parent)
        self.theme = theme
        self.note_kind: str | None = None  # the banner's kind, while one is shown
        self.collisions: list[str] = []  # the files shown as colliding
        self.secret_files: list[str] = []  # the files the service said hold a secret
        self.collided_at: str | None = None
        """The new branch the collision on show was to make (None: the working tree)."""
        self.result: dict[str, Any] | None = None
        self.undo_alone: str | None = None
        """With no result to show (its branch removed by hand): what undoing the apply
        that is still kept would do, as the service's check said; None: no such apply."""
        self.branch: str | None = None  # the branch made from the result (pull request)
        self.patches: dict[str, str] = {}  # path -> its diff, as fetched
        self.dialog: QDialog | None = None
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        bold = QFont(self.title.font())
        bold.setBold(True)
        self.title.setFont(bold)
        self.title.setWordWrap(True)
        self.detail = QLabel()
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refreshRequested)
        head = QHBoxLayout()
        words = QVBoxLayout()
        words.addWidget(self.title)
        words.addWidget(self.detail)
        head.addLayout(words, 1)
        head.addWidget(self.refresh_button, 0,
                       Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignRight)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.note.setOpenExternalLinks(True)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.note.hide()
        self.replayed_at: tuple[int, int] | None = None
        """While a replay shows the run before its end: the event shown, of how many."""
        self.replay_note = QLabel()
        self.replay_note.setObjectName("resultReplayNote")
        self.replay_note.setWordWrap(True)
        self.replay_note.setTextFormat(Qt.TextFormat.RichText)
        self.replay_note.hide()
        self.files = QTreeWidget()
        self.files.setHeaderLabels(["Accept · file", "Change"])
        self.files.setRootIsDecorated(False)
        self.files.setUniformRowHeights(True)
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.files.header().setStretchLastSection(False)
        self.files.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.files.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.files.currentItemChanged.connect(self._selected)
        self.files.itemChanged.connect(lambda *_: self._sync_buttons())
        self.patch = PatchView(theme=theme)
        self.split = QSplitter()
        self.split.addWidget(self.files)
        self.split.addWidget(self.patch)
        self.split.setStretchFactor(1, 1)
        self.split.setSizes([260, 640])
        # the diff's Unified / Side by side tabs run down its side: never shorter than them
        self.split.setMinimumHeight(self.patch.tabBar().sizeHint().height())
        self.applied = QLabel()
        self.applied.setTextFormat(Qt.TextFormat.PlainText)
        self.applied.setWordWrap(True)
        self.applied.hide()
        self.apply_button = QPushButton("Apply to my working tree")
        self.apply_button.setToolTip("A three-way merge of the accepted files onto your "
                                     "checkout; your uncommitted changes are kept, and a "
                                     "file that collides with them stops it (nothing changes)")
        self.apply_button.clicked.connect(lambda: self.applyRequested.emit(self.accepted()))
        self.branch_button = QPushButton("Create branch…")
        self.branch_button.setToolTip("The accepted files as a new branch on your HEAD; "
                                      "your checkout is not touched")
        self.branch_button.clicked.connect(lambda: self.ask_branch())
        self.pr_button = QPushButton("Open pull request")
        self.pr_button.setToolTip("Push the branch you created and open a pull request "
                                  "of it with gh")
        self.pr_button.clicked.connect(
            lambda: self.branch and self.pullRequestRequested.emit(self.branch))
        self.undo_button = QPushButton("Undo apply")
        self.undo_button.clicked.connect(self.undoRequested)
        self.undo_button.hide()
        self.count = QLabel()
        actions = QHBoxLayout()
        actions.addWidget(self.count)
        actions.addStretch(1)  # the buttons keep their size when the count is hidden
        for button in (self.undo_button, self.apply_button, self.branch_button, self.pr_button):
            actions.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(head)
        layout.addWidget(self.replay_note)
        layout.addWidget(self.note)
        layout.addWidget(self.split, 1)
        layout.addWidget(self.applied)
        layout.addLayout(actions)
        # takes the height the hidden body leaves when only a message shows, so the
        # message stays at the top instead of floating in the middle of the tab
        layout.addStretch(0)
        self.busy = False
        self.show_message("Open a run to see its result.")

    # --- what is shown ------------------------------------------------------------------------

    def show_replay(self, at: tuple[int, int] | None) -> None:
        """A replay shows the run at event ``at[0]`` of ``at[1]`` (None: at its end, or no
        replay): the result on show is still the run's final one, and says so."""
        self.replayed_at = at
        if at is not None:
            self.replay_note.setText(replay_text(*at))
            self._style_replay()
        self.replay_note.setVisible(at is not None and self.result is not None)

    def _body(self, shown: bool) -> None:
        self.replay_note.setVisible(shown and self.replayed_at is not None)
        for widget in (self.split, self.count, self.apply_button, self.branch_button):
            widget.setVisible(shown)
        self.pr_button.setVisible(shown and self.result is not None
                                  and self.result.get("pullRequest") is None)
        self.undo_button.setVisible(shown and self._undoable() is not None)
        if not shown:
            self.applied.hide()

    def show_message(self, line: str, why: str = "") -> None:
        """No result to show: a short ``line`` says so (no run, still working, no
        worktrees), and ``why``, when given, explains it in a paragraph under it."""
        self.result, self.branch, self.undo_alone = None, None, None
        self.patches.clear()
        self.files.clear()
        self.collisions = []
        self.patch.clear()
        self.title.setText(line)
        self.detail.setText(why)
        self.detail.setToolTip("")
        # a paragraph across a wide tab is one line too long to read: wrap it at a
        # reading width
        self.detail.setMaximumWidth(self.detail.fontMetrics().averageCharWidth()
                                    * MESSAGE_CHARS)
        self.detail.setVisible(bool(why))
        self.note.hide()
        self._body(False)

    def restate(self, why: str) -> None:
        """With no result on show: why, as it reads now (after an undo), the note kept."""
        if self.result is None:
            self.detail.setText(why)

    def show_result(self, result: dict[str, Any], node_label: str | None = None) -> None:
        """Show ``result`` (GET .../result; ``node_label``: its node's name on the canvas);
        a file accepted or rejected before stays so while the result is the same commit."""
        same = self.result is not None and self.result.get("commit") == result.get("commit")
        kept = {p: self._item_accepted(p) for p in self._paths()} if same else {}
        if not same:
            self.patches.clear()
            self.note.hide()
            self.secret_files = []
        current = self.current_path() if same else None
        self.result, self.undo_alone = result, None
        files = result.get("files") or []
        self.title.setText(f"Result: branch {result['branch']}, from node "
                           f"{node_label or result['node']}")
        scratch = in_scratch(result)
        where = "in the run's own scratch repository (no workspace was set)" if scratch \
            else f"in {result['repo']}"
        self.detail.setText(f"{where} · against the run's base "
                            f"{str(result['base'])[:12]} · {plural(len(files), 'file')} changed")
        self.detail.setToolTip(str(result["repo"]))
        self.detail.setMaximumWidth(QWIDGETSIZE_MAX)
        self.apply_button.setText("Apply to the run's workspace" if scratch
                                  else "Apply to my working tree")
        self.detail.show()
        self.files.blockSignals(True)
        self.files.clear()
        self.collisions = []  # the list is made anew, unmarked
        for f in files:
            item = QTreeWidgetItem([f["path"], f["status"]])
            item.setData(0, Qt.ItemDataRole.UserRole, f["path"])
            item.setData(1, Qt.ItemDataRole.UserRole, f["status"])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setForeground(1, self._status_brush(f["status"]))
            accepted = kept.get(f["path"], True)
            item.setCheckState(0, Qt.CheckState.Checked if accepted else Qt.CheckState.Unchecked)
            self.files.addTopLevelItem(item)
        self.files.blockSignals(False)
        branches = [a.get("branch") for a in result.get("applied") or []
                    if a.get("target") == "branch" and a.get("branch")]
        self.branch = self.branch if same and self.branch else (branches[-1] if branches
                                                                else None)
        self.show_applied(result.get("applied") or [])
        self._body(True)
        if not files:
            self.patch.show_text("The result changes no file against the run's base.")
        else:
            self.select(current if current in self._paths() else files[0]["path"])
        self._sync_buttons()

    def show_applied(self, records: list[dict[str, Any]]) -> None:
        """Every application of this result, oldest first (the one just made too): the
        latest few are listed, every one in the tooltip."""
        if not records:
            self.applied.hide()
            return
        lines = [applied_line(r) for r in records]
        # "so far": the list holds the application just made too, which "before" denied
        head = "Applied so far:" if len(lines) <= APPLIED_SHOWN else \
            f"Applied so far (the latest {APPLIED_SHOWN} of {len(lines)}):"
        self.applied.setText("\n".join([head, *lines[-APPLIED_SHOWN:]]))
        self.applied.setToolTip("\n".join(lines) if len(lines) > APPLIED_SHOWN else "")
        self.applied.show()

    def show_patch(self, path: str, patch: str) -> None:
        """``path``'s diff against the run's base (shown when it is the selected file)."""
        self.patches[path] = patch
        if self.current_path() != path:
            return
        parsed = parse_diff(patch)
        if parsed:
            self.patch.show_file(parsed[0])
        else:
            self.patch.show_text(patch or "(no textual change: a binary file or its mode)")

    def show_note(self, kind: str, html: str) -> None:
        """A banner over the files: ``kind`` ok, collision, info or error."""
        self.note_kind = kind
        self._style_note()
        self.note.setText(html)
        self.note.show()

    def _style_note(self) -> None:
        if self.note_kind is None:
            return
        t = self.theme
        background, border = (getattr(t, name) for name in _NOTE[self.note_kind])
        self.note.setStyleSheet(f"QLabel {{ background: {background}; color: {t.text}; "
                                f"border: 1px solid {border}; border-radius: 4px; "
                                "padding: 6px; }")

    def _style_replay(self) -> None:
        t = self.theme
        background, border = (getattr(t, name) for name in _NOTE["info"])
        self.replay_note.setStyleSheet(f"QLabel {{ background: {background}; color: "
                                       f"{t.text}; border: 1px solid {border}; "
                                       "border-radius: 4px; padding: 6px; }")

    def set_theme(self, theme: Theme) -> None:
        """Show the result in ``theme``: the diff, the banners and the files' changes."""
        self.theme = theme
        self._style_replay()
        self.patch.set_theme(theme)
        self._style_note()
        self.mark_collisions(self.collisions, self.collided_at)

    def _status_brush(self, status: str) -> QBrush:
        return QBrush(self.theme.color(_STATUS.get(status, "muted")))

    def show_outcome(self, outcome: dict[str, Any]) -> None:
        """What an application did (and, for a branch, that a pull request can follow)."""
        self.secret_files = []
        self.mark_collisions([])
        if outcome.get("target") == "branch" and outcome.get("applied"):
            self.branch = outcome.get("branch")
        self.show_note("ok" if outcome.get("applied") else "info", outcome_text(outcome))
        self._sync_buttons()

    def offer_undo(self, check: dict[str, Any]) -> None:
        """No result to show, but an apply of it can still be undone: Undo apply, with
        what it would do (``check``: the service's answer to undo with ``check``)."""
        if self.result is not None:
            return
        self.undo_alone = str(check.get("message") or "")
        self.undo_button.show()
        self._sync_buttons()

    def show_undone(self, outcome: dict[str, Any]) -> None:
        """What undoing the latest apply did."""
        self.mark_collisions([])
        self.show_note("ok" if outcome.get("applied") else "info", undone_text(outcome))
        if self.result is None and outcome.get("applied"):
            self.undo_alone = None  # that was the apply kept; the records are out of sight
            self.undo_button.hide()
        self._sync_buttons()

    def show_undo_collision(self, files: list[str]) -> None:
        """Undo was refused: ``files`` were edited since the apply where it would write."""
        self.mark_collisions(files)
        self.show_note("collision", undo_collision_text(files))

    def _undoable(self) -> dict[str, Any] | None:
        return undoable((self.result or {}).get("applied") or [])

    def show_secrets(self, files: list[str], message: str, accepted: list[str] | None,
                     branch: str | None) -> QDialog:
        """Applying was refused: ``files`` hold the value of a secret an agent was given
        (``message``: the service's words, naming each file and secret). Mark them, say
        so, and ask whether to apply anyway (``accepted`` and ``branch``: the refused
        request's, asked again with the secrets allowed)."""
        from desktop.ui.run.secret_dialog import ask_allow_secrets

        self.secret_files = list(files)
        self._style_rows()
        self.show_note("collision", escape(message[:1].upper() + message[1:]) + ".")
        self.dialog = ask_allow_secrets(
            self, files, message, lambda: self.allowSecretsRequested.emit(accepted, branch))
        return self.dialog

    def show_collision(self, files: list[str], branch: str | None = None) -> None:
        """Applying was refused: ``files`` collide with the user's work, nothing changed
        (``branch``: the new branch it was to make; None: onto the working tree)."""
        self.mark_collisions(files, branch)
        self.show_note("collision", collision_text(files, branch))

    def mark_collisions(self, files: list[str], branch: str | None = None) -> None:
        """Show ``files`` in red in the list, the others as usual (``branch``: as for
        :meth:`show_collision`)."""
        self.collisions = list(files)
        self.collided_at = branch
        self._style_rows()

    def _style_rows(self) -> None:
        """Each row as it stands: a colliding file in red, a rejected one dimmed, struck
        through and saying "rejected" (its checkbox alone was easy to miss), in the
        theme's colours."""
        collided = QBrush(self.theme.color("error"))
        muted = QBrush(self.theme.color("muted"))
        blocked = self.files.blockSignals(True)  # restyling is no change of the user's
        for i in range(self.files.topLevelItemCount()):
            item = self.files.topLevelItem(i)
            path = item.data(0, Qt.ItemDataRole.UserRole)
            secret = path in self.secret_files
            collides = path in self.collisions or secret
            rejected = item.checkState(0) != Qt.CheckState.Checked
            status = item.data(1, Qt.ItemDataRole.UserRole)
            said = [status] + (["holds a secret"] if secret else
                               ["collides"] if collides else []) + \
                (["rejected"] if rejected else [])
            item.setText(1, ", ".join(said))
            item.setForeground(0, collided if collides else muted if rejected else QBrush())
            item.setForeground(1, collided if collides else muted if rejected
                               else self._status_brush(status))
            font = item.font(0)
            font.setStrikeOut(rejected)
            item.setFont(0, font)
            item.setToolTip(0, SECRET_TIP if secret else
                            collision_tip(self.collided_at) if collides else
                            "rejected: left out when applied" if rejected else "")
        self.files.blockSignals(blocked)

    def set_busy(self, busy: bool) -> None:
        """While a request is out, its buttons wait."""
        self.busy = busy
        self._sync_buttons()

    # --- the files ------------------------------------------------------------------------------

    def _paths(self) -> list[str]:
        return [self.files.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)
                for i in range(self.files.topLevelItemCount())]

    def _item(self, path: str) -> QTreeWidgetItem | None:
        for i in range(self.files.topLevelItemCount()):
            item = self.files.topLevelItem(i)
            if item.data(0, Qt.ItemDataRole.UserRole) == path:
                return item
        return None

    def _item_accepted(self, path: str) -> bool:
        item = self._item(path)
        return item is not None and item.checkState(0) == Qt.CheckState.Checked

    def set_accepted(self, path: str, accepted: bool) -> None:
        """Accept or reject one file."""
        item = self._item(path)
        if item is not None:
            item.setCheckState(0, Qt.CheckState.Checked if accepted else Qt.CheckState.Unchecked)

    def accepted(self) -> list[str] | None:
        """The accepted files; None when every file is (the whole result)."""
        paths = self._paths()
        chosen = [p for p in paths if self._item_accepted(p)]
        return None if len(chosen) == len(paths) else chosen

    def select(self, path: str) -> None:
        """Select a file (its diff is shown)."""
        item = self._item(path)
        if item is not None:
            self.files.setCurrentItem(item)

    def current_path(self) -> str | None:
        item = self.files.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None

    def _selected(self, item: QTreeWidgetItem | None, _previous: Any = None) -> None:
        if item is None:
            return
        path = item.data(0, Qt.ItemDataRole.UserRole)
        if path in self.patches:
            self.show_patch(path, self.patches[path])
        else:
            self.patch.show_text(f"Loading the diff of {path}…")
            self.fileSelected.emit(path)

    def _sync_buttons(self) -> None:
        self._style_rows()
        paths = self._paths()
        chosen = [p for p in paths if self._item_accepted(p)]
        self.count.setText(f"{len(chosen)} of {plural(len(paths), 'file')} accepted")
        ready = self.result is not None and not self.busy
        self.apply_button.setEnabled(ready and bool(chosen))
        self.branch_button.setEnabled(ready and bool(chosen))
        self.pr_button.setEnabled(ready and self.branch is not None)
        record = self._undoable()
        alone = self.result is None and self.undo_alone is not None
        self.undo_button.setEnabled(not self.busy and (alone or (ready and record is not None)))
        self.undo_button.setToolTip(undo_tip(record) if record is not None else
                                    (self.undo_alone or "").capitalize() if alone else "")
        self.pr_button.setToolTip(
            f"Push branch {self.branch} and open a pull request of it with gh"
            if self.branch else "Create a branch first: the pull request is opened from it")
        self.refresh_button.setEnabled(not self.busy)

    # --- asking ---------------------------------------------------------------------------------

    def ask_branch(self, name: str | None = None, problem: str = "") -> QInputDialog:
        """Ask for the new branch's name (a window-modal dialog, opened, not exec'd):
        ``name`` typed already and the ``problem`` the service found with it, when asked
        again; else the default name."""
        from desktop.ui.run.result_branch_dialog import BranchDialog

        taken = [a.get("branch") for a in (self.result or {}).get("applied") or []]
        result = self.result or {}
        dialog = BranchDialog(self, name if name is not None else default_branch(
            str(result.get("runId", "")), taken), result.get("repo"), problem)
        accepted = self.accepted()
        dialog.textValueSelected.connect(lambda text: self.branchRequested.emit(accepted, text))
        dialog.open()
        self.dialog = dialog
        return dialog
