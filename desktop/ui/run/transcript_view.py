"""The transcript panel: a filterable, searchable list of events with a markdown detail pane."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFontMetrics, QKeyEvent, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.run.node_picker import pin_button
from desktop.ui.run.transcript_model import (
    CategoryRole,
    ExpandedRole,
    MarkdownRole,
    NodeRole,
    TranscriptModel,
    TsRole,
)
from desktop.views.format import CATEGORIES, DELTA_TYPES, HIDDEN_BY_DEFAULT
from desktop.wording import plural

MAX_EXPANDED_LINES = 40  # an opened thought taller than this scrolls in the detail pane
TEXT_X = 8 + 66 + 112  # where the preview column starts: after time and node

COLORS = {
    "user": "#2f80ed", "assistant": "#27ae60", "thinking": "#9b51e0", "tools": "#f2994a",
    "approvals": "#eb5757", "bus": "#56ccf2", "errors": "#d0021b", "lifecycle": "#828282",
}


class RowDelegate(QStyledItemDelegate):
    """One line per event: time, node, a coloured category mark, the preview."""

    def __init__(self, model: TranscriptModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = model

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        return QSize(200, QFontMetrics(option.font).height() + 6)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        painter.save()
        rect = option.rect
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(rect, option.palette.highlight())
            painter.setPen(option.palette.highlightedText().color())
        else:
            painter.setPen(option.palette.text().color())
        cat = index.data(CategoryRole) or "lifecycle"
        painter.fillRect(QRect(rect.left(), rect.top() + 2, 4, rect.height() - 4),
                         QColor(COLORS.get(cat, "#828282")))
        metrics = QFontMetrics(option.font)
        if index.data(ExpandedRole):  # time and node stay on the first line of a tall row
            rect = QRect(rect.left(), rect.top(), rect.width(), metrics.height() + 6)
        ts = str(index.data(TsRole) or "")[11:19]
        node = index.data(NodeRole)
        label = self._model.node_labels.get(node, node[:8]) if node else "run"
        x = rect.left() + 8
        painter.drawText(QRect(x, rect.top(), 64, rect.height()),
                         Qt.AlignmentFlag.AlignVCenter, ts)
        x += 66
        painter.drawText(QRect(x, rect.top(), 110, rect.height()), Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(label, Qt.TextElideMode.ElideRight, 106))
        x += 112
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        width = max(10, rect.right() - x - 4)
        if index.data(ExpandedRole):  # a thought opened in place: wrapped, top aligned
            full = option.rect
            painter.drawText(QRect(x, full.top() + 3, width, full.height() - 3),
                             Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap, text)
        else:
            painter.drawText(QRect(x, rect.top(), width, rect.height()),
                             Qt.AlignmentFlag.AlignVCenter,
                             metrics.elidedText(text, Qt.TextElideMode.ElideRight, width))
        painter.restore()


class TranscriptView(QWidget):
    """Transcript of a whole run or one node; filters by node, event type and text."""

    eventSelected = Signal(dict)
    chatRequested = Signal(str)  # node id

    def __init__(self, model: TranscriptModel | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = model or TranscriptModel()
        self.node_combo = QComboBox()
        self.node_combo.setObjectName("transcriptNode")
        self.node_combo.addItem("All nodes", None)
        self.types_button = QToolButton()
        self.types_button.setText("Events")
        self.types_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._menu = QMenu(self)
        self._category_actions: dict[str, QAction] = {}
        for name in (*CATEGORIES, "lifecycle"):
            act = self._menu.addAction(name)
            act.setCheckable(True)
            act.setChecked(True)
            act.toggled.connect(self._apply)
            self._category_actions[name] = act
        self._menu.addSeparator()
        self.raw_action = self._menu.addAction("Show deltas and heartbeats")
        self.raw_action.setCheckable(True)
        self.raw_action.toggled.connect(self._apply)
        self.types_button.setMenu(self._menu)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search (Enter)")
        self.search.setClearButtonEnabled(True)
        self.search.returnPressed.connect(self._apply)
        self.status = QLabel()
        bar = QHBoxLayout()
        bar.addWidget(self.node_combo)
        self.pin = pin_button()
        bar.addWidget(self.pin)
        bar.addWidget(self.types_button)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.status)
        # a table view with fixed row heights lays out a million rows without asking
        # the model about each one (list and tree views do)
        self.list = QTableView()
        self.list.setObjectName("transcriptList")
        self.list.horizontalHeader().hide()
        self.list.verticalHeader().hide()
        self.list.horizontalHeader().setStretchLastSection(True)
        self.list.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.list.verticalHeader().setDefaultSectionSize(QFontMetrics(self.font()).height() + 6)
        self.list.setShowGrid(False)
        self.list.setWordWrap(False)
        self.list.setItemDelegate(RowDelegate(self.model, self.list))
        self.list.setModel(self.model)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setToolTip("Double-click or Space opens a thinking row in place")
        self.list.doubleClicked.connect(lambda index: self.toggle_row(index.row()))
        self.list.installEventFilter(self)
        self.detail = QTextBrowser()
        self.detail.setOpenExternalLinks(True)
        # side by side: the bottom strip is wide and short
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.list)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(split, 1)
        self._follow = True
        self.node_combo.currentIndexChanged.connect(self._apply)
        self.list.verticalScrollBar().valueChanged.connect(self._track_follow)
        self._connect_model()
        self._label_timer = QTimer(self)
        self._label_timer.setInterval(500)
        self._label_timer.timeout.connect(self.refresh_nodes)
        self._label_timer.start()
        self._update_status()

    def _connect_model(self) -> None:
        self.list.selectionModel().currentChanged.connect(self._show_current)
        self.model.rowsInserted.connect(self._rows_added)
        self.model.dataChanged.connect(self._data_changed)
        self.model.indexingChanged.connect(self._update_status)
        self.model.searchingChanged.connect(self._update_status)
        self.model.modelReset.connect(self._update_status)
        self.model.modelReset.connect(self._apply_row_heights)

    def set_model(self, model: TranscriptModel) -> None:
        """Show another run's transcript (filters reset)."""
        self.model = model
        self.list.setModel(model)
        self.list.setItemDelegate(RowDelegate(model, self.list))
        self._connect_model()
        self.detail.clear()
        self.node_combo.blockSignals(True)
        self.node_combo.clear()
        self.node_combo.addItem("All nodes", None)
        self.node_combo.blockSignals(False)
        self.refresh_nodes()
        self._follow = True
        self._apply()

    # --- thinking rows opened in place -------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.list and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Space
                and self.list.currentIndex().isValid()):
            return self.toggle_row(self.list.currentIndex().row())
        return super().eventFilter(watched, event)

    def toggle_row(self, row: int) -> bool:
        """Open a thinking row in place to its whole text, or close it; False for other rows."""
        if not self.model.toggle_expanded(row):
            return False
        self._fit_row(row)
        return True

    def _fit_row(self, row: int) -> None:
        index = self.model.index(row)
        base = self.list.verticalHeader().defaultSectionSize()
        if not index.data(ExpandedRole):
            self.list.setRowHeight(row, base)
            return
        metrics = QFontMetrics(self.list.font())
        width = max(40, self.list.viewport().width() - TEXT_X - 4)
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        bounds = metrics.boundingRect(QRect(0, 0, width, 1 << 20),
                                      int(Qt.TextFlag.TextWordWrap), text)
        height = min(bounds.height(), metrics.lineSpacing() * MAX_EXPANDED_LINES)
        self.list.setRowHeight(row, max(base, height + 8))

    def _apply_row_heights(self, *_args: object) -> None:
        """Rows were rebuilt (filters): heights follow the opened rows to their new places."""
        for pos in self.model.expanded:
            row = self.model.row_of(pos)
            if row is not None:
                self._fit_row(row)

    # --- filters -----------------------------------------------------------------------------

    def selected_types(self) -> set[str] | None:
        """The event types to show, or None for the default set."""
        if self.raw_action.isChecked() is False and all(
                a.isChecked() for a in self._category_actions.values()):
            return None
        allowed = set(self.model.store.type_codes.names) | {t for ts in CATEGORIES.values()
                                                            for t in ts}
        from desktop.views.format import category

        out = {t for t in allowed if t and self._category_actions[category(t)].isChecked()}
        if not self.raw_action.isChecked():
            out -= set(HIDDEN_BY_DEFAULT)
        return out

    def follow_selection(self, node_id: str | None) -> None:
        """The canvas selected ``node_id`` (None: not one node): shown unless pinned."""
        if not self.pin.isChecked():
            self.set_node(node_id)

    def set_node(self, node_id: str | None) -> None:
        """Show one node's transcript (None: the whole run)."""
        self.refresh_nodes()
        i = self.node_combo.findData(node_id)
        if i < 0 and node_id is not None:
            self.node_combo.addItem(self.model.node_labels.get(node_id, node_id[:8]), node_id)
            i = self.node_combo.count() - 1
        self.node_combo.setCurrentIndex(max(0, i))

    def set_category(self, name: str, shown: bool) -> None:
        """Show or hide one category of events."""
        self._category_actions[name].setChecked(shown)

    def set_search(self, text: str) -> None:
        """Filter to events whose text contains ``text``."""
        self.search.setText(text)
        self._apply()

    def _apply(self) -> None:
        self.model.set_filter(self.node_combo.currentData(), self.selected_types(),
                              self.search.text().strip())
        self._update_status()
        if self._follow:
            self.list.scrollToBottom()

    def refresh_nodes(self) -> None:
        """Add nodes learned from events to the node filter."""
        known = {self.node_combo.itemData(i) for i in range(self.node_combo.count())}
        for node_id, label in self.model.node_labels.items():
            if node_id not in known:
                self.node_combo.addItem(label, node_id)

    # --- following the live tail -------------------------------------------------------------

    def _track_follow(self, value: int) -> None:
        self._follow = value >= self.list.verticalScrollBar().maximum() - 2

    def _rows_added(self, *_args: object) -> None:
        if self._follow:
            self.list.scrollToBottom()
        self._update_status()

    def _data_changed(self, top: QModelIndex, bottom: QModelIndex, *_r: object) -> None:
        for pos in self.model.expanded:  # a live thought grew: its opened row grows too
            row = self.model.row_of(pos)
            if row is not None and top.row() <= row <= bottom.row():
                self._fit_row(row)
        if self.list.currentIndex().isValid() and self.list.currentIndex().row() >= top.row():
            self._show_current(self.list.currentIndex())

    def _show_current(self, index: QModelIndex, *_args: object) -> None:
        if not index.isValid():
            return
        self.detail.setMarkdown(str(index.data(MarkdownRole) or ""))
        event = self.model.event_at(index.row())
        if event is not None:
            self.eventSelected.emit(event)

    def _update_status(self, *_args: object) -> None:
        note = " · indexing…" if self.model.indexing else ""
        note += " · searching…" if self.model.searching else ""
        self.status.setText(f"{plural(self.model.rowCount(), 'row')}{note}")


__all__ = ["DELTA_TYPES", "TranscriptView"]
