"""Making the run panels of a window: the docks' contents (conversation, transcript, diffs,
record, result, history, timeline, approvals, chat), the banners above the canvas and what
drives them, wired to the :class:`~desktop.ui.run.attach.RunPanels` that holds them.

Loaded and run once per window by ``RunPanels.build()``: on the first use of a panel, or
after the window's first paint, so the first paint waits for none of these modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QBoxLayout, QDockWidget, QVBoxLayout, QWidget

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
from desktop.ui.run.history_delete import HistoryDelete, forget_deleted
from desktop.ui.run.notifier import app_notifier
from desktop.ui.run.preflight import Preflight
from desktop.ui.run.record_view import RecordView
from desktop.ui.run.result_actions import ResultActions
from desktop.ui.run.result_view import ResultView
from desktop.ui.run.run_list_feed import RunListFeed
from desktop.ui.run.service_banner import ServiceBanner
from desktop.ui.run.stall_banner import FailureBanner, StallBanner
from desktop.ui.run.timeline import TimelineScrubber
from desktop.ui.run.transcript_view import TranscriptView
from desktop.views.activity import StepOrder
from desktop.views.notices import (
    ApprovalClosed,
    ApprovalOpened,
    DiffAdded,
    HandoffSent,
    NodeFailed,
    RunNotices,
    RunStalled,
    StallEnded,
)

if TYPE_CHECKING:
    from desktop.api.discovery import ServerInfo
    from desktop.ui.run.attach import RunPanels


def build_panels(panels: RunPanels) -> None:
    """Make ``panels``' widgets, put them in its docks and banners, and wire them."""
    window, parts = panels.window, panels.parts
    approvals = panels.approvals = ApprovalInbox(panels._resolve, badge=panels.badge)
    panels.feed = panels.runs_feed = None
    if panels.follow_service:  # every live run's approvals, not only the open run's
        panels.feed = ApprovalFeed(panels._data_dir, window, panels)
        panels.feed.remote = panels.remote
        approvals.follow(panels.feed, panels.feed.resolve)
        approvals.runRequested.connect(panels._bring_up)
        app_notifier().follow(panels.feed, panels)  # requests of runs no tab shows
    panels.transcript = TranscriptView()
    panels.conversation = ConversationView(theme=parts.theme())
    panels.diffs = DiffView(theme=parts.theme())
    panels.record = RecordView()
    panels.result = ResultView(theme=parts.theme())
    panels.history = RunHistory(panels.data_dir)
    if panels.follow_service:  # the history follows the service's run list while it shows
        panels.runs_feed = RunListFeed(panels._data_dir, panels.history, panels)
        panels.runs_feed.remote = panels.remote
        panels.history.follow(panels.runs_feed)
    panels.timeline = TimelineScrubber()
    panels.chat = ChatBox()
    panels.stall = StallBanner()
    panels.budget = BudgetBanner()
    panels.failure = FailureBanner()
    panels.service = ServiceBanner()
    scene = parts.scene
    panels.overlay = CanvasRunOverlay(scene, panels) if scene is not None else None
    panels.order = StepOrder()
    panels.preflight = Preflight(window, parts)
    panels.notices = _subscribe(panels)
    for key in ("conversation", "transcript", "diffs", "record", "result", "history",
                "timeline", "approvals", "chat"):
        _fill(panels.docks[key], getattr(panels, key))
    _place_banners(panels)
    _wire(panels)
    panels.budgets = BudgetWatch(panels, panels.budget)  # the toolbar's meter, the banner
    panels.forks = ForkActions(panels)  # Fork from here… (scrubber) and Compare (history)
    # the run's result: loaded when its tab is shown, again when the run ends
    panels.results = ResultActions(panels, panels.result, panels.docks["result"])
    panels.history.refresh()


def _fill(dock: QDockWidget, widget: QWidget) -> None:
    """Put ``widget`` in ``dock`` in place of the empty page it held until now."""
    page = dock.widget()
    dock.setWidget(widget)
    if page is not None:
        page.deleteLater()
    if dock.isVisible():
        widget.show()


def _place_banners(panels: RunPanels) -> None:
    central = panels.window.centralWidget()
    layout = central.layout() if central is not None else None
    if isinstance(layout, QBoxLayout):
        layout.insertWidget(0, panels.failure)
        layout.insertWidget(0, panels.budget)
        layout.insertWidget(0, panels.stall)
        layout.insertWidget(0, panels.service)
        return
    holder = QWidget()
    box = QVBoxLayout(holder)
    box.setContentsMargins(0, 0, 0, 0)
    for banner in (panels.service, panels.stall, panels.budget, panels.failure):
        box.addWidget(banner)
    panels.docks["banners"] = panels._dock("Attention", holder,
                                           Qt.DockWidgetArea.TopDockWidgetArea)


def _wire(panels: RunPanels) -> None:
    panels.stall.resumeRequested.connect(panels.resume)
    panels.failure.retryRequested.connect(panels.resume)
    panels.stall.stopRequested.connect(panels.ask_stop)
    panels.stall.instructionsChanged.connect(panels._new_instructions)
    panels.service.restartRequested.connect(panels.restart_service)
    panels.chat.sendRequested.connect(panels._chat)
    panels.chat.editRequested.connect(panels._edit_inbox)
    history = panels.history
    history.openRequested.connect(lambda p: panels._from_history(p, replay=False))
    history.replayRequested.connect(lambda p: panels._from_history(p, replay=True))
    history.runAgainRequested.connect(panels.run_again)

    async def service() -> ServerInfo:  # the one the window runs in, started when none runs
        from desktop.api.discovery import ensure_service

        return panels.remote or await ensure_service(panels._data_dir())

    panels.deleting = HistoryDelete(
        history, service,
        lambda run_ids: forget_deleted(run_ids, panels._data_dir(), panels), panels)
    panels.timeline.stateAt.connect(panels._replay_state)


def _subscribe(panels: RunPanels) -> RunNotices:
    """What each panel follows of the open run's events."""
    notices = RunNotices()
    notices.subscribe(ApprovalOpened, panels._approval_opened)
    notices.subscribe(ApprovalClosed, panels.approvals.closed)
    notices.subscribe(RunStalled, panels.stall.stalled)
    notices.subscribe(StallEnded, panels.stall.ended)
    notices.subscribe(NodeFailed, panels.failure.failed)
    notices.subscribe(DiffAdded, panels._diff_added)
    if panels.overlay is not None:
        notices.subscribe(HandoffSent, panels.overlay.handoff)
    return notices
