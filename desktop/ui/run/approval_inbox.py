"""The inbox of everything that waits on you: pending gated calls, merges that conflict and
choices among a best-of-N turn's attempts,
of the run this window shows and of every other live run of the service, and the runs
that stall detection or a budget paused, whose node's turn failed, or that wait for Step.

The open run's requests come from its events (``approval.requested`` /
``approval.resolved``), so they show the moment they happen. The others come from an
:class:`~desktop.ui.run.approval_feed.ApprovalFeed` (the service's ``/api/approvals``):
runs whose tab was closed, runs of another tab, runs another client started; so do the
stalls and failed turns (the run list's ``waiting``). The toolbar badge counts them all,
whatever tab is in front.

Deciding the open run's request goes through its session (the ``resolver``); another
run's goes straight to the service (``elsewhere``), and the inbox asks the window to
bring that run up (``runRequested``), in its own tab. A stall or a failed turn is acted on
in its run: opening its row brings the run up, where its banner offers what to do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QStackedLayout,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.empty_state import empty_label
from desktop.ui.run.approval_badge import approvals_badge, badge_icon
from desktop.ui.run.approval_feed import ApprovalFeed
from desktop.ui.run.approvals import ApprovalDialog, Resolver
from desktop.ui.run.choice_dialog import ChoiceDialog
from desktop.ui.run.merge_dialog import MergeDialog
from desktop.views.approval_text import approval_text
from desktop.views.notices import ApprovalClosed, ApprovalOpened

ID_ROLE = Qt.ItemDataRole.UserRole
COLUMNS = ("Waiting for", "Node", "Run", "Since")


def _since(request: dict[str, Any]) -> str:
    """``14:02:07``: when the request was made (the run state's field, else the event's;
    for a stall or a failed turn, when its run last changed)."""
    when = str(request.get("requestedAt") or request.get("ts") or request.get("since") or "")
    return when[11:19] if len(when) >= 19 else when


class ApprovalInbox(QWidget):
    """Pending requests and what else waits, oldest first. Enter opens one (a stall or a
    failed turn: brings its run up); A approves; D opens a request ready for a reason."""

    countChanged = Signal(int)
    # another run's request was acted on: bring that run up (run id, approval id, and
    # whether to open the request's dialog there)
    runRequested = Signal(str, str, bool)

    def __init__(self, resolver: Resolver | None = None, parent: QWidget | None = None,
                 badge: QAction | None = None):
        super().__init__(parent)
        self.resolver: Resolver = resolver or (lambda *_a: False)
        self.node_labels: dict[str, str] = {}
        self.pending: dict[str, dict] = {}  # the open run's
        self.own_run: str | None = None  # the open run's id: the feed's copy is not shown
        self.feed: ApprovalFeed | None = None
        self.elsewhere: Callable[..., Any] | None = None  # decides another run's request
        # decisions seen in events, hidden at once though the feed's last answer lags
        self.resolved: set[str] = set()
        self.dialog: ApprovalDialog | MergeDialog | ChoiceDialog | None = None
        self.list = QTreeWidget()
        self.list.setObjectName("approvalList")
        self.list.setHeaderLabels(list(COLUMNS))
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAlternatingRowColors(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setStyleSheet("QTreeView::item { padding: 4px 6px; }")
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.list.itemActivated.connect(lambda item, _c: self.open_request(item.data(0, ID_ROLE)))
        self.empty = empty_label("Nothing is waiting on you.\nApprovals of every live run "
                                 "show here, whichever tab is open.", "approvalsEmpty")
        self.stack = QStackedLayout()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.list)
        self.hint = QLabel("Enter: open · A: approve (a merge: open) · D: deny, with a reason")
        self.hint.setContentsMargins(6, 2, 6, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(self.stack, 1)
        layout.addWidget(self.hint)
        if badge is None:  # an inbox of its own; a window's badge is made with the window
            badge = approvals_badge(self)
            badge.triggered.connect(self.open_next)
        self.badge = badge
        for key, status in (("A", "approved"), ("D", "denied")):
            act = QAction(self.list)
            act.setShortcut(QKeySequence(key))
            act.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            act.triggered.connect(lambda _c=False, s=status: self._quick(s))
            self.list.addAction(act)
        self._refresh()

    # --- what is pending --------------------------------------------------------------------

    def follow(self, feed: ApprovalFeed, elsewhere: Callable[..., Any]) -> None:
        """Show other runs' requests too, as ``feed`` finds them; ``elsewhere`` decides
        one of them (a feed's ``resolve``)."""
        self.feed, self.elsewhere = feed, elsewhere
        feed.changed.connect(self._refresh)
        self._refresh()

    def set_own_run(self, run_id: str | None) -> None:
        """The run this window shows (None: none); its requests come from its events."""
        self.own_run = run_id
        self._refresh()

    def others(self) -> dict[str, dict]:
        """Requests of the service's other live runs, oldest first."""
        if self.feed is None:
            return {}
        return {aid: req for aid, req in self.feed.items.items()
                if req.get("runId") != self.own_run and aid not in self.pending
                and aid not in self.resolved}

    def waiting(self) -> dict[str, dict]:
        """Stalls and failed turns of the service's live runs (this window's run included)."""
        return dict(self.feed.waiting) if self.feed is not None else {}

    def count(self) -> int:
        """Everything that waits: the open run's requests, every other run's, and the
        stalls and failed turns."""
        return len(self.pending) + len(self.others()) + len(self.waiting())

    def set_state(self, state: dict | None) -> None:
        """Replace the pending list from a run state (e.g. when a run is opened)."""
        self.pending = dict((state or {}).get("pendingApprovals") or {})
        for node_id, node in ((state or {}).get("nodes") or {}).items():
            self.node_labels[node_id] = node.get("label") or node_id[:8]
        self._refresh()

    def set_labels(self, labels: dict[str, str]) -> None:
        """The open run's node names (id -> label), from its state."""
        self.node_labels.update(labels)

    def opened(self, notice: ApprovalOpened) -> None:
        """A request of the open run now waits."""
        self.pending[notice.approval_id] = notice.request
        self._refresh()

    def closed(self, notice: ApprovalClosed) -> None:
        """A request of the open run was decided: off the list, its dialog closed."""
        self.resolved.add(notice.approval_id)
        changed = self.pending.pop(notice.approval_id, None) is not None
        if self.dialog is not None and self.dialog.approval_id == notice.approval_id:
            self.dialog.close()
        if changed:
            self._refresh()

    # --- showing ----------------------------------------------------------------------------

    def _row(self, approval_id: str, req: dict, own: bool) -> QTreeWidgetItem:
        if own:
            node = self.node_labels.get(req.get("nodeId") or "", "run")
            run = "this run"
        else:
            info = self.feed.runs.get(str(req.get("runId"))) if self.feed else None
            node_id = str(req.get("nodeId") or "")
            node = (info.labels.get(node_id) if info else None) or node_id[:8] or "run"
            name = info.name if info and info.name else "Run"
            run = f"{name} · {str(req.get('runId'))[:8]}"
        item = QTreeWidgetItem([approval_text(req), node, run, _since(req)])
        item.setData(0, ID_ROLE, approval_id)
        item.setToolTip(0, approval_text(req))
        if not own:
            item.setToolTip(2, "Another run: deciding here brings it up in a tab of its own")
        return item

    def _waiting_row(self, key: str, item: dict) -> QTreeWidgetItem:
        what = {"stall": "Stalled", "budget": "Over budget",
                "step": "Waiting for Step"}.get(str(item.get("kind")), "Turn failed")
        text = f"{what}: {item.get('reason') or 'no reason given'}"
        own = item.get("runId") == self.own_run
        run = "this run" if own else \
            f"{item.get('workflowName') or 'Run'} · {str(item.get('runId'))[:8]}"
        row = QTreeWidgetItem([text, str(item.get("node") or "run"), run, _since(item)])
        row.setData(0, ID_ROLE, key)
        row.setToolTip(0, text + ("" if own else "\nOpen it to bring its run up"))
        return row

    def _refresh(self) -> None:
        current = self.current_id()
        self.list.clear()
        rows = [(aid, req, True) for aid, req in self.pending.items()]
        rows += [(aid, req, False) for aid, req in self.others().items()]
        rows += [(key, item, None) for key, item in self.waiting().items()]
        rows.sort(key=lambda r: str(r[1].get("requestedAt") or r[1].get("ts")
                                    or r[1].get("since") or ""))
        for approval_id, req, own in rows:
            item = self._waiting_row(approval_id, req) if own is None else \
                self._row(approval_id, req, own)
            self.list.addTopLevelItem(item)
            if approval_id == current:
                self.list.setCurrentItem(item)
        if self.list.currentItem() is None and self.list.topLevelItemCount():
            self.list.setCurrentItem(self.list.topLevelItem(0))
        count = len(rows)
        self.stack.setCurrentWidget(self.list if count else self.empty)
        self.hint.setVisible(bool(count))
        self.badge.setIcon(badge_icon(count))
        self.badge.setText(f"Approvals ({count})")
        self.countChanged.emit(count)

    def current_id(self) -> str | None:
        """The approval id of the selected row."""
        item = self.list.currentItem()
        return item.data(0, ID_ROLE) if item is not None else None

    def select(self, approval_id: str) -> bool:
        """Select and focus the row of ``approval_id`` (False when it waits no more)."""
        for i in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(i)
            if item.data(0, ID_ROLE) == approval_id:
                self.list.setCurrentItem(item)
                self.list.setFocus()
                return True
        return False

    def row_texts(self) -> list[str]:
        """Each row as one line, ``Node: request`` (what tests and screen readers read)."""
        out = []
        for i in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(i)
            out.append(f"{item.text(1)}: {item.text(0)}")
        return out

    # --- deciding ---------------------------------------------------------------------------

    def open_request(self, approval_id: str) -> ApprovalDialog | MergeDialog | ChoiceDialog | None:
        """Show the dialog for one pending request (non-blocking). Another run's request
        is decided in that run's tab: the run is brought up and opens it there; so is
        another run's stall or failed turn (its banner there says what can be done)."""
        req = self.pending.get(approval_id)
        if req is None:
            other = self.others().get(approval_id)
            if other is not None:
                self.runRequested.emit(str(other.get("runId")), approval_id, True)
            waits = self.waiting().get(approval_id)
            if waits is not None and waits.get("runId") != self.own_run:
                self.runRequested.emit(str(waits.get("runId")), "", False)
            return None
        if self.dialog is not None:
            self.dialog.close()
        label = self.node_labels.get(req.get("nodeId") or "", "")
        kind = {"merge": MergeDialog, "choice": ChoiceDialog}.get(str(req.get("kind")),
                                                                  ApprovalDialog)
        self.dialog = kind(req, self.resolver, label, self)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def open_next(self) -> ApprovalDialog | MergeDialog | ChoiceDialog | None:
        """Open the oldest pending request (the top row)."""
        if not self.list.topLevelItemCount():
            return None
        return self.open_request(self.list.topLevelItem(0).data(0, ID_ROLE))

    def _quick(self, status: str) -> None:
        approval_id = self.current_id()
        if approval_id is None:
            return
        if status != "denied":
            self.decide(approval_id, status)
            return
        # a denial stops the agent's plan: it is not sent on one key, it asks for a reason
        dialog = self.open_request(approval_id)
        if isinstance(dialog, ApprovalDialog):
            dialog.ask_reason()

    def decide(self, approval_id: str, status: str) -> Any:
        """Approve or deny one request as proposed, from the list (A / D)."""
        own = approval_id in self.pending
        req = self.pending.get(approval_id) or self.others().get(approval_id)
        if req is None:
            return None
        if req.get("kind") in ("merge", "choice") and status != "denied":
            # a merge needs a decision per file, a choice its attempt: open it
            self.open_request(approval_id)
            return None
        if own:
            return self.resolver(approval_id, status, None, None)
        if self.elsewhere is None:
            return None
        result = self.elsewhere(approval_id, status, None, None)
        self.runRequested.emit(str(req.get("runId")), approval_id, False)
        return result
