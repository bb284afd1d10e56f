"""Two runs side by side: totals, the graphs, the turns aligned by node and turn, and the
chosen turn's output and diff in each run.

Its colours are the theme's, as the Diffs panel's are: a turn that differs has the
background of a changed diff line, and a theme switched while it is open re-colours it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.ui import theme as themes
from desktop.ui.run.compare_graph import GraphPicture
from desktop.ui.theme import Theme
from desktop.views.compare import (
    AlignedTurn,
    RunDigest,
    TurnDigest,
    align,
    changed_nodes,
    setup_changes,
)
from desktop.wording import plural

SUMMARY = ("Run", "Status", "Forked from", "Turns", "Tokens", "Cost", "Time")
TURN_COLUMNS = ("Node", "Turn", "Left", "Right", "")


def seconds_text(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 60:
        return f"{value:.1f} s"
    minutes, sec = divmod(int(value), 60)
    return f"{minutes}:{sec:02d} min"


def turn_text(turn: TurnDigest | None) -> str:
    """One cell of the aligned turns: how the turn went, in a line."""
    if turn is None:
        return "—"
    parts = [turn.status, seconds_text(turn.seconds)]
    if turn.tokens:
        parts.append(f"{int(turn.tokens):,} tok")
    if turn.files:
        parts.append(plural(len(turn.files), "file"))
    if turn.copied:
        parts.append("copied")
    return " · ".join(parts)


def verdict_of(row: AlignedTurn) -> str:
    """The last column of an aligned turn: copied (from the fork's source), same or differs."""
    return "copied" if row.copied else ("same" if row.same else "differs")


def _money(value: float) -> str:
    return f"${value:.4f}"


def summary_values(digest: RunDigest) -> list[str]:
    """The totals column of one run."""
    own_tokens, copied_tokens = digest.total("tokens", False), digest.total("tokens", True)
    own_cost, copied_cost = digest.total("cost", False), digest.total("cost", True)
    copied_turns = sum(1 for t in digest.turns if t.copied)
    lineage = (f"{digest.forked_from[0][:8]} at seq {digest.forked_from[1]:,}"
               if digest.forked_from else "—")
    turns = plural(len(digest.turns), "turn")
    tokens = f"{int(own_tokens):,}"
    cost = _money(own_cost)
    time = seconds_text(digest.seconds)
    if digest.forked_from:
        turns += f" ({copied_turns} copied)"
        tokens += f" (+ {int(copied_tokens):,} copied, not spent again)"
        cost += f" (+ {_money(copied_cost)} copied)"
        time += f" (+ {seconds_text(digest.total('seconds', True))} in the copied turns)"
    return [f"{digest.workflow} · {digest.run_id[:8]}", digest.status, lineage, turns, tokens,
            cost, time]


class CompareView(QWidget):
    """Compare ``left`` and ``right`` (a fork's source on the left, by convention)."""

    def __init__(self, left: RunDigest, right: RunDigest, theme: Theme | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("compareRuns")
        self.setWindowTitle(f"Compare runs — {left.run_id[:8]} and {right.run_id[:8]}")
        theme = theme or themes.current()
        self.left, self.right, self.theme = left, right, theme
        self.rows: list[AlignedTurn] = align(left, right)
        changed = changed_nodes(left, right)
        title = QLabel(self._title())
        title.setProperty("role", "title")
        title.setWordWrap(True)
        self.changes = QLabel(self._changes())
        self.changes.setObjectName("compareChanges")
        self.changes.setWordWrap(True)
        self.summary = self._summary()
        self.graphs = QSplitter(Qt.Orientation.Horizontal)
        self.left_graph, self.right_graph = GraphPicture(theme), GraphPicture(theme)
        self.left_graph.show_run(left, changed)
        self.right_graph.show_run(right, changed)
        self.graphs.addWidget(self.left_graph)
        self.graphs.addWidget(self.right_graph)
        self.turns = self._turn_table()
        self.left_detail, self.right_detail = QPlainTextEdit(), QPlainTextEdit()
        details = QSplitter(Qt.Orientation.Horizontal)
        for pane in (self.left_detail, self.right_detail):
            pane.setReadOnly(True)
            pane.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
            details.addWidget(pane)
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(self.graphs)
        body.addWidget(self.turns)
        body.addWidget(details)
        body.setStretchFactor(0, 2)
        body.setStretchFactor(1, 3)
        body.setStretchFactor(2, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.changes)
        layout.addWidget(self.summary)
        layout.addWidget(body, 1)
        self.turns.currentCellChanged.connect(lambda row, *_: self.show_turn(row))
        first_difference = next((i for i, r in enumerate(self.rows) if not r.same), 0)
        if self.rows:
            self.turns.setCurrentCell(first_difference, 0)
        self.resize(1200, 800)

    def _title(self) -> str:
        left, right = self.left, self.right
        if right.forked_from and right.forked_from[0] == left.run_id:
            text = (f"{right.run_id[:8]} is a fork of {left.run_id[:8]} from seq "
                    f"{right.forked_from[1]:,}; the turns before it are shared")
        else:
            text = (f"{left.workflow} ({left.run_id[:8]}) and {right.workflow} "
                    f"({right.run_id[:8]})")
        return text

    def _changes(self) -> str:
        changes = setup_changes(self.left, self.right)
        return (f"Set up differently: {'; '.join(changes)}" if changes else
                "Both runs' nodes are set up alike")

    def _summary(self) -> QTableWidget:
        table = QTableWidget(len(SUMMARY), 2)
        table.setObjectName("compareSummary")
        table.setHorizontalHeaderLabels([f"Left: {self.left.run_id[:8]}",
                                         f"Right: {self.right.run_id[:8]}"])
        table.setVerticalHeaderLabels(list(SUMMARY))
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for column, digest in enumerate((self.left, self.right)):
            for row, value in enumerate(summary_values(digest)):
                item = QTableWidgetItem(value)
                item.setToolTip(value)
                table.setItem(row, column, item)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        height = table.horizontalHeader().height() + sum(
            table.rowHeight(r) for r in range(table.rowCount())) + 4
        table.setFixedHeight(height)
        return table

    def _turn_table(self) -> QTableWidget:
        table = QTableWidget(len(self.rows), len(TURN_COLUMNS))
        table.setObjectName("compareTurns")
        table.setHorizontalHeaderLabels(list(TURN_COLUMNS))
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().setVisible(False)
        for r, row in enumerate(self.rows):
            label = (row.left or row.right).label if (row.left or row.right) else row.key
            values = (label, str(row.turn), turn_text(row.left), turn_text(row.right),
                      verdict_of(row))
            for c, value in enumerate(values):
                table.setItem(r, c, QTableWidgetItem(value))
        self._colour_turns(table)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        return table

    def _colour_turns(self, table: QTableWidget) -> None:
        """A turn that differs on the background of a changed diff line, a copied one in
        muted text; both in this view's theme."""
        t = self.theme
        # None: the view's own colours (the palette's, the theme's too)
        looks = {"differs": (QBrush(QColor(t.diff_chg)), QBrush(QColor(t.text))),
                 "copied": (None, QBrush(QColor(t.muted)))}
        for r, row in enumerate(self.rows):
            background, foreground = looks.get(verdict_of(row), (None, None))
            for c in range(table.columnCount()):
                item = table.item(r, c)
                item.setData(Qt.ItemDataRole.BackgroundRole, background)
                item.setData(Qt.ItemDataRole.ForegroundRole, foreground)

    def set_theme(self, theme: Theme) -> None:
        """Show the comparison in ``theme``'s colours (the app's theme was switched)."""
        self.theme = theme
        self._colour_turns(self.turns)
        for graph in (self.left_graph, self.right_graph):
            graph.set_theme(theme)

    def show_turn(self, row: int) -> None:
        """Show the row's turn of each run: how it went, what the agent said, its diff."""
        if not 0 <= row < len(self.rows):
            return
        aligned = self.rows[row]
        for pane, turn, digest in ((self.left_detail, aligned.left, self.left),
                                   (self.right_detail, aligned.right, self.right)):
            pane.setPlainText(self._detail(turn, digest))

    def _detail(self, turn: TurnDigest | None, digest: RunDigest) -> str:
        if turn is None:
            return f"Run {digest.run_id[:8]} has no such turn."
        plus, minus = turn.lines_changed
        head = (f"{turn.label}, turn {turn.turn}: {turn_text(turn)}\n"
                f"tokens in {int(turn.input_tokens):,}, out {int(turn.output_tokens):,}; "
                f"cost {_money(turn.cost)}; {plural(turn.tools, 'tool call')}\n")
        if turn.files:
            head += f"changed {', '.join(turn.files)} (+{plus} -{minus})\n"
        return (f"{head}\n— what the agent said —\n{turn.text or '(nothing)'}\n\n"
                f"— its diff —\n{turn.diff or '(no change)'}")
