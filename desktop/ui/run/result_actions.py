"""The Result view's link to the service: the result of the run the panels show, a file's
diff, applying the accepted files (and undoing that), a branch, a pull request.

Every call is a task on the GUI thread's asyncio loop (qasync): the git work runs in the
service, nothing here blocks the window, and no other thread touches a widget. The
result is loaded when the Result tab is on show (and again when the run ends), so a
window that never looks at it asks nothing. An answer for a run that is no longer on
show is dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDockWidget
from shiboken6 import isValid

from desktop.api.api_error import ApiError
from desktop.api.discovery import ensure_service
from desktop.contract.enums import RUN_WORKING
from desktop.ui.run.result_text import pull_request_text
from desktop.ui.run.result_view import ResultView

if TYPE_CHECKING:
    from desktop.api.client import ApiClient
    from desktop.ui.run.attach import RunPanels
    from desktop.ui.run.session import RunSession

log = logging.getLogger(__name__)
STILL_WORKING = ("The run is still working: its result is ready when it ends (or when "
                 "you pause it).")


class ResultActions(QObject):
    """Feeds ``view`` the result of ``panels``' run and carries out its requests."""

    def __init__(self, panels: RunPanels, view: ResultView, dock: QDockWidget) -> None:
        super().__init__(panels)
        self.panels = panels
        self.view = view
        self.dock = dock
        self.run_id: str | None = None
        self.data_dir: Path | None = None
        self.stale = True  # the result on show may be out of date: load on next showing
        self.on_show = False  # the Result tab is the one shown (as its dock last said)
        self.tasks: set[asyncio.Task] = set()
        panels.sessionChanged.connect(self._session)
        panels.timeline.stateAt.connect(self._replayed)
        dock.visibilityChanged.connect(self._visible)
        view.refreshRequested.connect(self.refresh)
        view.fileSelected.connect(self.load_patch)
        view.applyRequested.connect(lambda files: self.apply(files))
        view.branchRequested.connect(lambda files, name: self.apply(files, name))
        view.pullRequestRequested.connect(self.pull_request)
        view.undoRequested.connect(self.undo)
        view.allowSecretsRequested.connect(
            lambda files, branch: self.apply(files, branch, allow_secrets=True))

    # --- following the run on show -----------------------------------------------------------

    def _session(self, session: RunSession | None) -> None:
        self.run_id = session.run_id if session is not None else None
        self.data_dir = session.data_dir if session is not None else None
        self.stale = True
        self.view.show_replay(None)  # a replay starts after the session is shown
        if session is None:
            self.view.show_message("Open a run to see its result.")
            return
        self.view.show_message("The result is loaded when this tab is shown.")
        session.finished.connect(self._ended)
        if self.on_show:
            self.refresh()

    def _replayed(self, seq: int, _state: object) -> None:
        """The replay scrubber moved: before the run's last event the result on show is
        still the final one, and the view says so."""
        replay = self.panels.timeline.replay
        before_end = self.panels.replaying and replay is not None and seq < replay.total
        self.view.show_replay((seq, replay.total) if before_end and replay else None)

    def _ended(self, _status: str) -> None:
        self.stale = True
        if self.on_show:
            self.refresh()

    def _visible(self, shown: bool) -> None:
        self.on_show = shown
        if shown and self.stale:
            self.refresh()

    def _label(self, result: dict[str, Any]) -> str | None:
        """The result node's name on the canvas (the run's state has it)."""
        session = self.panels.session
        nodes = ((session.state or {}).get("nodes") or {}) if session is not None else {}
        label = (nodes.get(str(result.get("nodeId"))) or {}).get("label")
        return str(label) if label else None

    def _status(self) -> str:
        session = self.panels.session
        if session is None or session.run_id != self.run_id:
            return ""
        return str((session.state or {}).get("status", ""))

    # --- requests -------------------------------------------------------------------------------

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("result request failed", exc_info=task.exception())

    async def _call(self, call: Callable[[ApiClient], Awaitable[Any]]) -> Any:
        """One request to the service of the run's data folder (started if it is not), or
        to another machine's when the window is its client."""
        assert self.data_dir is not None
        info = self.panels.remote or await ensure_service(self.data_dir)
        async with info.client() as client:
            return await call(client)

    def _current(self, run_id: str) -> bool:
        return self.run_id == run_id and isValid(self.view)

    def refresh(self) -> asyncio.Task | None:
        """Load the result of the run on show (a line saying why not, when it has none)."""
        if self.run_id is None:
            return None
        if self._status() in RUN_WORKING:
            self.stale = True
            self.view.show_message(STILL_WORKING)
            return None
        self.stale = False
        return self._spawn(self._refresh(self.run_id))

    async def _refresh(self, run_id: str) -> None:
        self.view.set_busy(True)
        try:
            result = await self._call(lambda c: c.result(run_id))
        except ApiError as exc:
            if self._current(run_id):
                self.view.set_busy(False)
                self.view.show_message(*_no_result(exc))
                if exc.code == "no_result":  # its branch removed by hand: undo still works
                    await self._offer_undo(run_id)
            return
        except Exception as exc:  # the service could not be started: say why
            if self._current(run_id):
                self.view.set_busy(False)
                self.view.show_message(f"The result cannot be loaded: {exc}")
            return
        if self._current(run_id):
            self.view.set_busy(False)
            self.view.show_result(result, self._label(result))

    async def _offer_undo(self, run_id: str) -> None:
        """Offer Undo apply when the service's check says there is an apply to undo."""
        try:
            check = await self._call(lambda c: c.undo_apply(run_id, check=True))
        except Exception as exc:  # nothing to undo, or it cannot be: the message stands
            log.debug("no undo to offer: %s", exc)
            return
        if self._current(run_id):
            self.view.offer_undo(check)

    def load_patch(self, path: str) -> asyncio.Task | None:
        """Fetch one file's diff against the run's base."""
        if self.run_id is None:
            return None
        return self._spawn(self._patch(self.run_id, path))

    async def _patch(self, run_id: str, path: str) -> None:
        try:
            patch = await self._call(lambda c: c.result_diff(run_id, path))
        except Exception as exc:  # the view says it in place of the diff
            if self._current(run_id) and self.view.current_path() == path:
                self.view.patch.show_text(f"The diff of {path} cannot be loaded: {exc}")
            return
        if self._current(run_id):
            self.view.show_patch(path, patch)

    def apply(self, files: list[str] | None, branch: str | None = None, *,
              allow_secrets: bool = False) -> asyncio.Task | None:
        """Apply the accepted ``files`` (None: all) to the working tree, or as ``branch``
        (``allow_secrets``: even files that hold a secret, as the user confirmed)."""
        if self.run_id is None:
            return None
        return self._spawn(self._apply(self.run_id, files, branch, allow_secrets))

    async def _apply(self, run_id: str, files: list[str] | None, branch: str | None,
                     allow_secrets: bool = False) -> None:
        show = self.view.show_collision
        await self._change(run_id, lambda c: c.apply(run_id, files=files, branch=branch,
                                                     allow_secrets=allow_secrets),
                           self.view.show_outcome, {
                               "apply_collides": lambda exc: show(exc.problems, branch),
                               # the files and secrets named; asked whether to apply anyway
                               "result_has_secrets": lambda exc: self.view.show_secrets(
                                   exc.problems, exc.message, files, branch),
                               # a name taken meanwhile: asked again, the name kept
                               "invalid_branch": lambda exc: self.view.ask_branch(
                                   branch, exc.message)},
                           "Nothing was changed", "The result cannot be applied")

    def undo(self) -> asyncio.Task | None:
        """Take back the latest apply of the result to the working tree."""
        if self.run_id is None:
            return None
        return self._spawn(self._undo(self.run_id))

    async def _undo(self, run_id: str) -> None:
        show = self.view.show_undo_collision
        await self._change(run_id, lambda c: c.undo_apply(run_id), self.view.show_undone,
                           {"undo_collides": lambda exc: show(exc.problems)},
                           "Nothing was undone", "The apply cannot be undone")

    async def _change(self, run_id: str, call: Callable[[ApiClient], Awaitable[Any]],
                      done: Callable[[Any], None],
                      answers: dict[str, Callable[[ApiError], object]],
                      refused: str, failed: str) -> None:
        """Ask the service to change the user's repository (apply, undo); show what it
        did (``done``), a refusal one of ``answers`` shows (by the error's code: the
        files it named as colliding, a name to give again), or why it ``refused`` or
        ``failed``; then the applications."""
        self.view.set_busy(True)
        try:
            outcome = await self._call(call)
        except ApiError as exc:
            if self._current(run_id):
                self.view.set_busy(False)
                if exc.code in answers:
                    answers[exc.code](exc)
                else:  # the message alone: "(branch)", the field, means nothing here
                    self.view.show_note("error", _html(f"{refused}: {exc.message}"))
            return
        except Exception as exc:
            if self._current(run_id):
                self.view.set_busy(False)
                self.view.show_note("error", _html(f"{failed}: {exc}"))
            return
        if not self._current(run_id):
            return
        self.view.set_busy(False)
        done(outcome)
        await self._records(run_id)

    async def _records(self, run_id: str) -> None:
        """The list of applications, brought up to date after one more."""
        try:
            result = await self._call(lambda c: c.result(run_id))
        except ApiError as exc:
            if exc.code == "no_result" and self._current(run_id) and self.view.result is None:
                self.view.restate(_no_result(exc)[1])  # no undo left to speak of, say
            return
        except Exception as exc:  # the outcome on show already says what happened
            log.info("result not reloaded: %s", exc)
            return
        if self._current(run_id):
            self.view.show_result(result, self._label(result))

    def pull_request(self, branch: str) -> asyncio.Task | None:
        """Push ``branch`` and open a pull request of it."""
        if self.run_id is None:
            return None
        return self._spawn(self._pull_request(self.run_id, branch))

    async def _pull_request(self, run_id: str, branch: str) -> None:
        self.view.set_busy(True)
        self.view.show_note("info", _html(f"Pushing {branch} and opening a pull request…"))
        try:
            opened = await self._call(lambda c: c.pull_request(run_id, branch))
        except Exception as exc:
            if self._current(run_id):
                self.view.set_busy(False)
                self.view.show_note("error", _html(f"No pull request was opened: {exc}"))
            return
        if self._current(run_id):
            self.view.set_busy(False)
            self.view.show_note("ok", pull_request_text(opened, branch))

    def cancel(self) -> None:
        """Drop the requests still out (the window is closing); each ends on the loop."""
        for task in list(self.tasks):
            task.cancel()


def _no_result(exc: ApiError) -> tuple[str, str]:
    """That the run has no result to show, and why."""
    if exc.code == "no_result":
        return "No result", exc.message[:1].upper() + exc.message[1:] + "."
    if exc.code == "run_not_found":
        return "No result", "The service does not know this run."
    return "The result cannot be loaded", str(exc)


def _html(text: str) -> str:
    from html import escape

    return escape(text)
