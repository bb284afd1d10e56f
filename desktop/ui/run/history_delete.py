"""Deleting runs picked in Run history: the question first, then ``DELETE /api/runs/RUN``
for each, then the history and every window that showed one of them are told.

The service does the deleting (desktop/runtime/run_delete.py, as ``agent-canvas runs
delete`` does): each run's folder goes, its node worktrees are pooled or removed and its
``canvas/RUN8/*`` branches are deleted; the user's own repository, branches and
uncommitted work are not touched. The requests are aiohttp calls on the GUI thread's
asyncio loop (qasync), one run after the other, so the window never waits and no worker
thread touches Qt. What went, or why not, is said in the history panel itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox, QWidget
from shiboken6 import isValid

from desktop.api.api_error import ApiError
from desktop.api.client_errors import ServiceUnavailable
from desktop.views.result import undoable
from desktop.views.run_deleted import branches_deleted, worktrees_text
from desktop.wording import plural

if TYPE_CHECKING:
    from desktop.api.discovery import ServerInfo
    from desktop.ui.run.history import HistoryRow, RunHistory

log = logging.getLogger(__name__)
LISTED = 8  # runs named one by one in the question; more are counted


def _named(row: HistoryRow) -> str:
    return f"“{row.workflow}” (run {row.run_id[:8]})"


def delete_question(rows: list[HistoryRow]) -> tuple[str, str, str]:
    """The question's text, its note (what goes and what stays) and its list of runs."""
    worked = [row for row in rows if row.result is not None]  # in worktrees of their own
    branches = ", ".join(f"canvas/{row.run_id[:8]}/*" for row in worked[:3])
    if len(worked) > 3:
        branches += ", …"
    one = len(rows) == 1
    text = f"Delete {_named(rows[0])}?" if one else f"Delete {plural(len(rows), 'run')}?"
    its = "its" if one else "their"
    goes = f"Deleted: {its} {'folder' if one else 'folders'} (events, logs, artifacts)"
    if len(worked) == len(rows):
        goes += f", {its} node worktrees and {its} branches {branches}"
    elif worked:
        goes += f", and the node worktrees and branches of those that had them ({branches})"
    goes += "."
    if any(undoable(list(row.result.applied)) for row in worked):
        whose = "its" if one else "a run's"
        goes += (f" So is the state before {whose} apply to your working tree: that apply "
                 "can no longer be undone (what it wrote stays).")
    note = (f"{goes}\n\nLeft as they are: your repository, its branches and any uncommitted "
            "work in it, and a result already applied to one of your branches.\n\n"
            "This cannot be undone.")
    listed = [_named(row) for row in rows[:LISTED]]
    if len(rows) > LISTED:
        listed.append(f"and {plural(len(rows) - LISTED, 'more run')}")
    return text, note, "\n".join(listed) if len(rows) > 1 else ""


def ask_delete(parent: QWidget | None, rows: list[HistoryRow],
               delete: Callable[[], object]) -> QMessageBox:
    """The question before ``rows`` are deleted: Esc or Enter keeps them (deleting is one
    more deliberate click). Call its ``open()``; ``delete`` is called when the answer is
    delete."""
    text, note, listed = delete_question(rows)
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Delete runs" if len(rows) > 1 else "Delete the run")
    box.setText(text)
    box.setInformativeText(note + (f"\n\n{listed}" if listed else ""))
    # wide enough that a branch pattern is not broken at its slash, short lines to read
    box.setStyleSheet("QLabel#qt_msgbox_informativelabel { min-width: 34em; }")
    yes = box.addButton("&Delete" if len(rows) == 1 else f"&Delete {plural(len(rows), 'run')}",
                        QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton("&Keep", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    box.buttonClicked.connect(lambda clicked: delete() if clicked is yes else None)
    return box


@dataclass
class Outcome:
    """What one round of deleting did."""

    deleted: list[dict[str, Any]] = field(default_factory=list)
    """The service's answers (``RunDeletedOut``), one per run deleted."""
    gone: list[str] = field(default_factory=list)
    """Runs the service no longer had (deleted meanwhile, elsewhere)."""
    refused: list[str] = field(default_factory=list)
    """Why each run that was not deleted was not."""

    def run_ids(self) -> list[str]:
        """Every run that is gone now."""
        return [str(d.get("runId")) for d in self.deleted] + self.gone

    def text(self) -> str:
        """One paragraph for the panel."""
        parts = []
        if self.deleted:
            branches = sum(len(branches_deleted(d)) for d in self.deleted)
            parts.append(f"Deleted {plural(len(self.deleted), 'run')}: "
                         f"{worktrees_text(self.deleted)}, "
                         f"{plural(branches, 'branch')} removed.")
            kept = [k for d in self.deleted for k in d.get("kept") or ()]
            if kept:
                parts.append("Left in place: " + "; ".join(kept) + ".")
        if self.gone:
            parts.append(f"Already gone: {', '.join(r[:8] for r in self.gone)}.")
        parts.extend(self.refused)
        return " ".join(parts)


def refusal(row: HistoryRow, exc: ApiError) -> str:
    """Why ``row`` was not deleted, in the panel's words (the service's for the rest)."""
    name = _named(row)
    if isinstance(exc, ServiceUnavailable):
        return (f"{name} was not deleted: the service is not reachable ({exc.reason}). "
                "Start it again (open or run a workflow) and delete it then.")
    if exc.code == "run_live":
        return f"{name} was not deleted: it is live. Stop it first, then delete it."
    if exc.code == "run_busy":
        return (f"{name} was not deleted: another engine holds it (an `agent-canvas run` in "
                "a terminal?). Stop it there first.")
    said = exc.message.removeprefix(f"run {row.run_id[:8]} not deleted")
    if exc.code in ("worktree_locked", "worktree_changed") and said != exc.message:
        # the service's own words ("nothing was changed", or what went when a worktree
        # was locked part way), the run named once
        return f"{name} was not deleted{said}"
    return f"{name} was not deleted: {exc}"


class HistoryDelete(QObject):
    """Deletes what ``history`` asks to, through the service ``service()`` names (started
    when none runs), and calls ``forget(run_ids)`` for the runs that are gone."""

    def __init__(self, history: RunHistory, service: Callable[[], Any],
                 forget: Callable[[list[str]], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.history = history
        self._service = service
        self._forget = forget
        self.box: QMessageBox | None = None
        self.task: asyncio.Task | None = None
        history.deleteRequested.connect(self.ask)

    def ask(self, rows: list[HistoryRow]) -> QMessageBox | None:
        """Ask before deleting ``rows`` (a round under way is let finish first)."""
        if self.task is not None and not self.task.done():
            self.history.show_note("Runs are being deleted; wait for them first.", error=True)
            return None
        self.box = ask_delete(self.history.window(), rows, lambda: self.delete(rows))
        self.box.open()  # not exec(): no nested event loop inside the asyncio loop
        return self.box

    def delete(self, rows: list[HistoryRow]) -> asyncio.Task:
        """Delete ``rows`` now (no question); the task's result is the :class:`Outcome`."""
        self.history.show_note(f"Deleting {plural(len(rows), 'run')}…")
        self.history.delete_button.setEnabled(False)
        self.task = asyncio.ensure_future(self._delete(rows))
        self.task.add_done_callback(self._done)
        return self.task

    async def _delete(self, rows: list[HistoryRow]) -> Outcome:
        outcome = Outcome()
        try:
            info: ServerInfo = await self._service()
        except Exception as exc:  # the service cannot start: the message names its log
            outcome.refused.append(f"Nothing was deleted: {exc}")
            return outcome
        client = info.client()
        try:
            for row in rows:
                try:
                    outcome.deleted.append(await client.delete_run(row.run_id))
                except ApiError as exc:
                    if exc.code == "run_not_found":
                        outcome.gone.append(row.run_id)
                        continue
                    outcome.refused.append(refusal(row, exc))
                    if isinstance(exc, ServiceUnavailable):  # the rest would fail alike
                        break
        finally:
            await client.close()
        return outcome

    def _done(self, task: asyncio.Task) -> None:
        if task.cancelled() or not isValid(self.history):
            return
        if (exc := task.exception()) is not None:  # a bug, not the service saying no
            log.error("deleting runs failed", exc_info=exc)
            self.history.show_note(f"Deleting failed: {exc}", error=True)
            self.history.refresh()
            return
        outcome: Outcome = task.result()
        self.history.show_note(outcome.text(), error=bool(outcome.refused))
        if gone := outcome.run_ids():
            self._forget(gone)
        self.history.refresh()  # the service's list, or the folders when it is gone


def forget_deleted(run_ids: list[str], data_dir: Path, *also: object) -> None:
    """Every window (tab) that shows one of ``run_ids`` of ``data_dir`` stops showing it and
    says it was deleted; ``also``: run panels of windows the app does not list (a test's)."""
    from desktop.ui.tabs import TAB_WINDOWS
    from desktop.ui.window import OPEN_WINDOWS

    panels = [e.run_panels for w in TAB_WINDOWS if isValid(w) for e in w.editors()]
    panels += [w.run_panels for w in OPEN_WINDOWS if isValid(w)]
    panels += [p for p in also if p not in panels]
    for each in panels:
        session = getattr(each, "session", None)
        if session is not None and session.run_id in run_ids \
                and Path(session.data_dir) == Path(data_dir):
            each.run_deleted(session.run_id)
