"""Put the run panels into a main window: ``panels = attach_run_panels(window, parts)``.

The window hands over the parts the panels use (:class:`WindowParts`: its document, the
workflow file, the canvas scene...). Everything the
panels show comes from the current :class:`RunSession`'s events. Runs are started
and steered through the local service (started on first use); closing the window
leaves them running there.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMessageBox, QWidget
from shiboken6 import isValid

from desktop.ui.on_demand import Built, after_first_paint
from desktop.ui.run.approval_badge import approvals_badge
from desktop.ui.run.panel_links import ModesAndChat
from desktop.ui.run.run_controls import RunControls
from desktop.ui.run.window_parts import WindowParts

if TYPE_CHECKING:  # the panels' modules load with them: see desktop/ui/run/panel_build.py
    from desktop.api.discovery import ServerInfo
    from desktop.ui.run.approval_feed import ApprovalFeed
    from desktop.ui.run.approval_inbox import ApprovalInbox
    from desktop.ui.run.budget_banner import BudgetBanner
    from desktop.ui.run.budget_watch import BudgetWatch
    from desktop.ui.run.canvas_overlay import CanvasRunOverlay
    from desktop.ui.run.chat import ChatBox
    from desktop.ui.run.conversation_view import ConversationView
    from desktop.ui.run.diff_view import DiffView
    from desktop.ui.run.fork_actions import ForkActions
    from desktop.ui.run.history import RunHistory
    from desktop.ui.run.history_delete import HistoryDelete
    from desktop.ui.run.preflight import Preflight
    from desktop.ui.run.record_view import RecordView
    from desktop.ui.run.result_actions import ResultActions
    from desktop.ui.run.result_view import ResultView
    from desktop.ui.run.run_list_feed import RunListFeed
    from desktop.ui.run.service_banner import ServiceBanner
    from desktop.ui.run.session import RunSession
    from desktop.ui.run.stall_banner import FailureBanner, StallBanner
    from desktop.ui.run.timeline import TimelineScrubber
    from desktop.ui.run.transcript_view import TranscriptView
    from desktop.ui.theme import Theme
    from desktop.views.activity import StepOrder
    from desktop.views.notices import ApprovalOpened, DiffAdded, RunNotices

log = logging.getLogger(__name__)
BOTTOM = Qt.DockWidgetArea.BottomDockWidgetArea
TOP = Qt.DockWidgetArea.TopDockWidgetArea
# the run docks (key, title, area), made in this order; the bottom ones share one set of
# tabs: the run as a conversation first, every event, filterable, in Transcript beside it
DOCKS = (("conversation", "Conversation", BOTTOM), ("transcript", "Transcript", BOTTOM),
         ("diffs", "Diffs", BOTTOM), ("record", "Record", BOTTOM),
         ("result", "Result", BOTTOM), ("history", "Run history", BOTTOM),
         # a strip across the whole window, under the toolbars: the canvas it scrubs is below
         ("timeline", "Timeline", TOP),
         ("approvals", "Approvals", BOTTOM), ("chat", "Chat", BOTTOM))
STARTING = "Starting the run…"  # in the status bar until the service has made the run


class RunPanels(ModesAndChat, QObject):
    """The run toolbar, docks and banners of one window, and the run they show."""

    sessionChanged = Signal(object)  # RunSession or None
    runDeleted = Signal(str)  # the run shown was deleted (its id), after the banner says so

    # made by build() (desktop/ui/run/panel_build.py) on first use, or once the window has
    # first been painted: reading one of them before then builds them all
    approvals: ApprovalInbox = Built()
    feed: ApprovalFeed | None = Built()
    transcript: TranscriptView = Built()
    conversation: ConversationView = Built()
    diffs: DiffView = Built()
    record: RecordView = Built()
    result: ResultView = Built()
    history: RunHistory = Built()
    runs_feed: RunListFeed | None = Built()
    deleting: HistoryDelete = Built()
    """Deletes the runs Run history asks to (asks first)."""
    timeline: TimelineScrubber = Built()
    chat: ChatBox = Built()
    stall: StallBanner = Built()
    budget: BudgetBanner = Built()
    failure: FailureBanner = Built()
    service: ServiceBanner = Built()
    overlay: CanvasRunOverlay | None = Built()
    order: StepOrder = Built()
    """When each input was queued: which node a step runs next."""
    preflight: Preflight = Built()
    notices: RunNotices = Built()
    budgets: BudgetWatch = Built()
    forks: ForkActions = Built()
    results: ResultActions = Built()

    def __init__(self, window: QMainWindow, parts: WindowParts, data_dir: Path | None = None,
                 follow_service: bool = False) -> None:
        super().__init__(window)
        self.window = window
        self.parts = parts
        self.data_dir = data_dir
        self.follow_service = follow_service
        self.session: RunSession | None = None
        self.remote: ServerInfo | None = None
        """The service of another machine the window is a client of (None: this one's)."""
        self.replaying = False
        self.built = False
        self._closing: set[asyncio.Future] = set()
        self._starting: asyncio.Task | None = None
        self.start_error: QMessageBox | None = None
        self.stop_box: QMessageBox | None = None
        self.controls = RunControls(window)
        window.addToolBarBreak()  # a row of its own: the run controls never overflow
        window.addToolBar(self.controls)
        self.badge = approvals_badge(self)  # its shortcut works before the inbox is made
        self.badge.triggered.connect(lambda _checked=False: self.approvals.open_next())
        self.controls.add_badge(self.badge)
        # the docks come first, each holding an empty page until build() fills it: the
        # window's tabs and a saved layout need them, the first paint not their contents
        self.docks: dict[str, QDockWidget] = {
            key: self._dock(title, QWidget(), area) for key, title, area in DOCKS}
        # a new name: a layout saved while it sat in the narrow bottom corner is not reused
        self.docks["timeline"].setObjectName("dock_run_scrubber")
        self.docks["timeline"].setTitleBarWidget(QWidget())  # one row: the scrubber itself
        # Approvals and chat share the bottom tabs, so the inspector keeps its height;
        # the toolbar badge and the approval dialog bring them forward when needed.
        if parts.problems_dock is not None:
            window.tabifyDockWidget(parts.problems_dock, self.docks["conversation"])
        bottom = [key for key, _title, area in DOCKS if area == BOTTOM]
        for first, second in pairwise(bottom):
            window.tabifyDockWidget(self.docks[first], self.docks[second])
        self.docks["conversation"].raise_()
        self.docks["timeline"].hide()
        window.resizeDocks([self.docks["transcript"]], [320], Qt.Orientation.Vertical)
        self._wire_controls()
        # the toolbar's approvals badge and the service's feeds are wanted whatever the
        # window shows, so the panels are made right after the first paint at the latest
        after_first_paint(window, self.build)

    def build(self) -> None:
        """Make the panels, their banners and what drives them (once; at once when the
        first is needed, else after the window's first paint)."""
        if self.built:
            return
        self.built = True
        from desktop.ui.run.panel_build import build_panels

        build_panels(self)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName("dock_run_" + title.lower().replace(" ", "_"))
        dock.setWidget(widget)
        self.window.addDockWidget(area, dock)
        return dock

    def _wire_controls(self) -> None:
        c = self.controls
        c.runRequested.connect(self.run)
        c.stepRequested.connect(self.step)
        c.pauseRequested.connect(lambda: self._each("pause"))
        c.resumeRequested.connect(self.resume)
        c.stopRequested.connect(self.ask_stop)
        c.modeRequested.connect(lambda m: self._each("set_mode", m, None))
        c.globalModeRequested.connect(lambda g: self._each("set_mode", None, g))
        c.documentModesRequested.connect(self._set_document_modes)
        if self.parts.editor is not None:
            model = self.parts.editor.model
            model.metaChanged.connect(self._sync_document_modes)
            model.documentReset.connect(self._sync_document_modes)
        self._sync_document_modes()
        if self.parts.scene is not None:
            self.parts.scene.selectionChanged.connect(self._canvas_selection)


    # --- sessions ---------------------------------------------------------------------------

    def _document(self) -> tuple[Any, str | None]:
        doc = self.parts.document()
        if doc is None:
            return None, None
        path = self.parts.workflow_path()
        return doc, (str(path) if path else None)

    def when_loaded(self, call: Callable[[], object]) -> None:
        """Call ``call`` once the open run's past is in (now, when it already is): a run
        opened through the API gets its first events after a round trip."""
        session = self.session
        if session is None or session.has_past:
            call()
        else:
            session.pastLoaded.connect(call, Qt.ConnectionType.SingleShotConnection)

    def set_remote(self, info: ServerInfo | None) -> None:
        """Be a client of another machine's service (``info``), or of this machine's
        (None): runs start there, Run history and Approvals list its runs."""
        self.remote = info
        if not self.built:  # the feeds and the history take it as they are made
            return
        for feed in (self.feed, self.runs_feed):
            if feed is not None:
                feed.remote = info
        self.history.refresh()

    def _data_dir(self) -> Path:
        from desktop.disk.paths import data_dir

        return self.data_dir or data_dir(None)

    def local_data_dir(self) -> Path | None:
        """The data folder runs are made in, when it is on this machine (None while the
        window follows a service on another one)."""
        return None if self.remote is not None else self._data_dir()

    def show_session(self, session: RunSession | None) -> None:
        """Make ``session`` the run the panels show (closing the previous one)."""
        from desktop.views.activity import StepOrder

        old, self.session = self.session, session
        if old is not None and old is not session:
            self._closing.add(asyncio.ensure_future(old.close()))
            self._closing = {t for t in self._closing if not t.done()}
        self.stop_replay()
        self.approvals.set_own_run(session.run_id if session is not None else None)
        self.order = StepOrder()
        if self.overlay is not None:
            self.overlay.clear()
            self.overlay.order = self.order
            # the states it is shown come from this projection: meters follow its batches
            self.overlay.source = session.bridge.projection if session is not None else None
        self.diffs.clear()
        self.record.clear()
        self.stall.hide()
        self.failure.hide()
        self.service.hide()
        if session is None:
            self.controls.set_state(None, live=False)
            self._show_run_modes(None)
            self.sessionChanged.emit(None)
            return
        self.transcript.set_model(session.model)
        self.docks["conversation"].show()
        self.docks["conversation"].raise_()
        run_dir = session.run_dir
        self.stall.run_dir = self.failure.run_dir = run_dir
        self.diffs.fetch = session.artifact_text if session.client is not None else None
        session.bridge.events.connect(self._on_events)
        session.bridge.stateChanged.connect(self._on_state)
        session.finished.connect(self._on_finished)
        session.failed.connect(self._on_failed)
        session.serviceLost.connect(self.service.show_lost)
        session.gone.connect(lambda: self.run_deleted(session.run_id))
        session.serviceBack.connect(self.service.hide)
        if session.left_paused:  # left paused by the terminal: it simply goes on
            self.service.show_paused(session.lost_message)
        elif session.lost is not None:  # an interrupted run, opened from its folder
            self.service.show_lost(session.lost_message)
        self.when_loaded(lambda: self._replay_history(session))
        self.sessionChanged.emit(session)

    def _replay_history(self, session: RunSession) -> None:
        """Bring every panel up to the events written before the session opened."""
        from desktop.views.notices import DiffAdded, NodeFailed, notices_of

        if session is not self.session:  # another run was shown while its past came
            return
        past = session.take_past()
        self.conversation.reset(past)
        self.order(past)
        self._name_nodes(session.state)
        self.approvals.set_state(session.state)
        self.stall.set_state(session.state)
        # a run that failed before the window followed it (a fast one, a busy machine)
        # still says where and why, as its live failure would have
        failed = (session.state or {}).get("status") == "failed"
        for notice in notices_of(past):  # what is open comes from the state; diffs pile up
            if isinstance(notice, DiffAdded):
                self._diff_added(notice)
            elif failed and isinstance(notice, NodeFailed):
                self.failure.failed(notice)
        self._on_state(session.state)

    def _approval_opened(self, notice: ApprovalOpened) -> None:
        self.approvals.opened(notice)
        self.docks["approvals"].raise_()  # bring the waiting call forward, without blocking

    def _diff_added(self, notice: DiffAdded) -> None:
        from desktop.views.state import node_labels

        if self.session is not None:
            state = self.session.state
            self.diffs.add_notice(notice, self.session.run_dir, node_labels(state), state)

    def _name_nodes(self, state: dict | None) -> None:
        """Give every panel the nodes' names (and instructions) of the run's state."""
        from desktop.views.state import node_labels

        labels = node_labels(state)
        self.approvals.set_labels(labels)
        self.stall.name_nodes(state)
        self.failure.name_nodes(state)
        self.diffs.set_nodes(labels)

    def _on_events(self, events: list[dict]) -> None:
        if self.replaying:
            return
        self.order(events)
        if self.session is not None:  # the bridge folded the batch before it came here
            self._name_nodes(self.session.state)
        self.conversation.apply_events(events)
        from desktop.ui.run.notifier import app_notifier

        notices = self.notices.publish(events)
        app_notifier().observe(self, notices)  # a desktop notification when it needs the user

    def _on_state(self, state: dict | None) -> None:
        if self.replaying or self.session is None:
            return
        self.controls.set_state(state, live=self.session.live, running=self.session.running,
                                next_node=(next_node := self.order.next_node(state)),
                                resumable=self.session.left_paused,
                                waiting=self._waiting_text(state, next_node))
        self.failure.offer_retry(self.session.live and (state or {}).get("status") == "failed")
        self._show_run_modes(state)
        self.chat.set_state(state)
        self.chat.set_live(self.session.running, self._why_no_chat(state))
        self.record.update_run(self.session.run_dir, state)
        if self.overlay is not None:
            self.overlay.apply_state(state)
        if self.parts.follow_state is not None:
            self.parts.follow_state(state)

    def _waiting_text(self, state: dict | None, next_node: str | None) -> str | None:
        """What the live run waits on the user for, from the same projection the Approvals
        inbox lists (None: nothing, or a run only read)."""
        from desktop.views.run_waiting import waiting_text

        if state is None or not self.session.live:
            return None
        try:
            return waiting_text(self.session.bridge.projection.model(),
                                step_named=next_node is not None)
        except ValueError:  # no usable run.created yet
            return None

    def run_deleted(self, run_id: str) -> None:
        """Run ``run_id``, shown here, was deleted (from Run history, the CLI, another
        client): nothing of it is shown any more, and the banner says so; the canvas keeps
        its graph, so it can be run again."""
        if self.session is None or self.session.run_id != run_id:
            return
        from desktop.ui.run.transcript_model import TranscriptModel

        self.show_session(None)
        self.transcript.set_model(TranscriptModel(parent=self))
        self.conversation.reset()
        self.service.show_deleted(
            f"Run {run_id[:8]} was deleted: its events, worktrees and branches are gone. "
            "The canvas keeps the workflow's graph; Run starts it again.")
        self.runDeleted.emit(run_id)  # a tab of the run's own graph names it "deleted"
        self.history.refresh()

    def _on_finished(self, status: str) -> None:
        if self.session is not None:
            self._on_state(self.session.state)
        self.history.refresh()

    def _on_failed(self, message: str) -> None:
        self.window.statusBar().showMessage(message, 10000)

    # --- commands ----------------------------------------------------------------------------

    def run(self, interactive: bool = False) -> asyncio.Task | None:
        """Start a new run of the window's workflow (AUTO, or INTERACTIVE) in the service;
        the task's result is the new session (None when it could not start)."""
        doc, path = self._document()
        if doc is None or not doc.nodes:
            self._on_failed("Open or draw a workflow first.")
            return None
        return self._start(doc, path, "INTERACTIVE" if interactive else None)

    def _start(self, doc: Any, path: str | None, mode: str | None) -> asyncio.Task | None:
        if self.preflight.refuse(doc):  # the validator the CLI and the service use
            return None
        if self._starting is not None and not self._starting.done():
            self._on_failed("A run is being started.")
            return None
        self._starting = asyncio.ensure_future(self._create(doc, path, mode))
        return self._starting

    async def _create(self, doc: Any, path: str | None, mode: str | None) -> RunSession | None:
        bar = self.window.statusBar()
        bar.showMessage(STARTING)
        try:
            from desktop.ui.run.session import RunSession

            session = await RunSession.create(doc, self._data_dir(), mode=mode,
                                              workflow_path=path, parent=self,
                                              remote=self.remote)
        except Exception as exc:  # a workflow or a service that cannot start: say why
            self._cannot_start(str(exc))
            return None
        finally:  # started or not, it is no longer starting (a short run may be over)
            if isValid(bar) and bar.currentMessage() == STARTING:
                bar.clearMessage()
        self.show_session(session)
        self.history.refresh()
        return session

    def _cannot_start(self, message: str) -> None:
        log.info("run not started: %s", message)
        box = QMessageBox(QMessageBox.Icon.Warning, "Cannot start the run", message,
                          QMessageBox.StandardButton.Ok, self.window)
        box.open()  # not exec(): no nested event loop inside the asyncio task
        self.start_error = box

    def _each(self, name: str, *args: Any) -> Any:
        if self.session is None:
            self._on_failed("No run is open.")
            return None
        command = {"step": self.session.step, "pause": self.session.pause,
                   "resume": self.session.resume, "stop": self.session.stop,
                   "set_mode": self.session.set_mode, "chat": self.session.chat}[name]
        return command(*args)

    def step(self, node: str | None = None) -> Any:
        """INTERACTIVE: run the next turn (or ``node``'s)."""
        return self._each("step", node)

    def resume(self) -> Any:
        """Resume a paused or stalled run (one that no engine holds in the service,
        started first, as the banner's button does)."""
        if self.session is not None and self.session.lost is not None:
            return self.restart_service()
        return self._each("resume")

    def stop(self) -> Any:
        """Stop the run."""
        return self._each("stop")

    def ask_stop(self) -> QMessageBox | None:
        """Ask before stopping the open run (the toolbar, Shift+F6, a banner's Stop)."""
        from desktop.ui.close_dialog import stop_question

        if self.session is None:
            return None
        name = ((self.session.state or {}).get("workflowName") or "the run")
        self.stop_box = box = stop_question(self.window, f"“{name}”", self.stop)
        box.open()  # not exec(): no nested event loop under the asyncio loop
        return box

    def restart_service(self) -> asyncio.Task | None:
        """Restart the service that ran the open run, and resume the run in it."""
        if self.session is None:
            return None
        session = self.session
        task = session.restart_service()

        def done(t: asyncio.Task) -> None:
            if not t.cancelled() and t.exception() is None and t.result() is False \
                    and session is self.session:
                self.service.restart_failed("The service could not be started again; "
                                            "the status bar says why.")

        task.add_done_callback(done)
        return task

    def _resolve(self, approval_id: str, status: str, args: dict | None,
                 reason: str | None, merge: dict | None = None,
                 choice: int | None = None) -> Any:
        if self.session is None:
            return False
        task = self.session.resolve(approval_id, status, args, reason, merge=merge,
                                    choice=choice)
        return task if task is not None else False

    def _bring_up(self, run_id: str, approval_id: str, open_it: bool) -> None:
        """Another run's request was acted on in the inbox: show that run (its tab, opened
        when there is none), and open the request's dialog there when asked to."""
        if self.parts.bring_up_run is not None:
            self.parts.bring_up_run(self._data_dir() / "runs" / run_id,
                                    approval_id if open_it else None)

    def _new_instructions(self, node_id: str, text: str) -> None:
        session = self.session
        if session is None:
            return

        async def update_then_resume() -> None:
            update = session.update_node_config(node_id, {"instructions": text})
            if update is not None:
                await update
            session.resume()

        self._closing.add(asyncio.ensure_future(update_then_resume()))

    def _edit_inbox(self, node_id: str, item_id: str, text: str) -> None:
        if self.session is None:
            self._on_failed("No run is open.")
            return
        self.session.edit_inbox(node_id, item_id, text)

    def _from_history(self, run_dir: Path, replay: bool) -> Any:
        """A run picked in Run history: the window decides where it shows (with its own
        graph); a window that does not say shows it here."""
        if self.parts.show_run is not None:
            return self.parts.show_run(run_dir, replay)
        return self.replay(run_dir) if replay else self.open_run(run_dir)

    def open_run(self, run_dir: Path) -> RunSession:
        """Show a run from its folder: attached when the service runs it, else read-only."""
        from desktop.ui.run.session import RunSession

        session = RunSession.open(Path(run_dir), self, self._data_dir(), remote=self.remote)
        self.show_session(session)
        return session

    def replay(self, run_dir: Path) -> RunSession:
        """Open a past run with the timeline scrubber."""
        session = self.open_run(run_dir)
        self.replaying = True
        self.docks["timeline"].show()
        if session.client is None:
            self.timeline.load(Path(run_dir))
        else:  # the events the API sent, held by the transcript: no folder is read
            self.when_loaded(lambda: self._replay_held(session))
        return session

    def _replay_held(self, session: RunSession) -> None:
        from desktop.views.replay import HeldEvents

        if session is self.session and self.replaying:
            self.timeline.load(HeldEvents(session.model.store.events))

    def set_theme(self, theme: Theme) -> None:
        """Show the panels in ``theme`` (panels not made yet take the window's as they are)."""
        if self.built:
            self.conversation.set_theme(theme)
            self.diffs.set_theme(theme)
            self.result.set_theme(theme)
            self.forks.set_theme(theme)
            self.service.set_theme(theme)

    def release(self) -> None:
        """Let go of what the panels hold open outside a session (the replayed log); the
        window is closing. The session itself is detached before this (it is async)."""
        if not self.built:  # nothing was made, so nothing is held
            return
        self.timeline.close_run()
        self.results.cancel()
        self.diffs.cancel_fetch()
        for feed in (self.feed, self.runs_feed):
            if feed is not None:
                feed.stop()

    def stop_replay(self) -> None:
        """Leave replay: panels follow the run again."""
        if not self.replaying:
            return
        self.replaying = False
        if self.overlay is not None:
            self.overlay.replay_at(False)
        self.timeline.close_run()
        self.docks["timeline"].hide()
        self.conversation.set_limit(None)
        if self.session is not None:
            self.session.model.set_limit(None)

    def _replay_state(self, seq: int, state: dict | None) -> None:
        if self.session is None:
            return
        self.session.model.set_limit(seq)
        self.conversation.set_limit(seq)
        self.controls.set_state(state, live=False)
        self._show_run_modes(None)
        self.chat.set_state(state)
        self.chat.set_live(False, "Replaying: messages go to a running run.")
        self.approvals.set_state(state)
        self.stall.set_state(state)
        if self.overlay is not None:
            self.overlay.replay_at(True)
            self.overlay.apply_state(state)
        if self.parts.follow_state is not None:
            self.parts.follow_state(state)

    def run_again(self, run_dir: Path) -> asyncio.Task | None:
        """Start a new run of the graph a past run started with: read from its folder, or
        asked of the service on another machine that holds it."""
        from desktop.views.rerun import document_of_run

        if self.remote is not None and not (Path(run_dir) / "events.jsonl").is_file():
            if self._starting is not None and not self._starting.done():
                self._on_failed("A run is being started.")
                return None
            self._starting = asyncio.ensure_future(self._again_remote(Path(run_dir).name))
            return self._starting
        try:
            doc, path = document_of_run(Path(run_dir))
        except ValueError as exc:
            self._on_failed(str(exc))
            return None
        return self._start(doc, path, None)

    async def _again_remote(self, run_id: str) -> RunSession | None:
        from desktop.views.rerun import document_of_first

        assert self.remote is not None
        try:
            async with self.remote.client() as client:
                page = await client.events(run_id, limit=1, after=0)
            first = (page.get("events") or [{}])[0]
            doc, path = document_of_first(first, f"run {run_id} at {self.remote.url}")
        except Exception as exc:  # the service refused or is gone: say why
            self._on_failed(f"Cannot run it again: {exc}")
            return None
        if self.preflight.refuse(doc):
            return None
        return await self._create(doc, path, None)


def attach_run_panels(window: QMainWindow, parts: WindowParts | None = None,
                      data_dir: Path | None = None, follow_service: bool = False) -> RunPanels:
    """Add the run toolbar, docks (transcript, diffs, result, history, timeline, approvals,
    chat) and the stall/failure banners to ``window``; returns the object that drives them.
    ``follow_service``: the Approvals inbox also lists every other live run's requests, and
    Run history follows the service's run list. ``parts``: what of the window the panels
    use (none of it when left out)."""
    panels = RunPanels(window, parts or WindowParts(), data_dir, follow_service)
    window.run_panels = panels  # type: ignore[attr-defined]
    return panels
