"""File > Open evaluation: the comparison of an ``eval run`` folder as a table.

Filter by verdict and tag; open any case's run, on either side, read-only in the
run views (the same path as Run history's Open). The rows come from
:mod:`desktop.eval.browse`, so the app and the HTML report agree.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.eval.browse import FILTERS, CaseRow, EvaluationTable
from desktop.ui.dialog_size import keep_readable
from desktop.views.usage import cost_delta_text
from desktop.wording import plural

COLUMNS = ("Case", "Verdict", "Baseline", "New", "Risk", "Δ turns", "Δ tokens", "Δ cost",
           "Δ time (s)", "Tags")
VERDICT_COLORS = {"regressed": "#c0262d", "fixed": "#17803d", "flaky": "#a15c00",
                  "unchanged_fail": "#c0262d"}


def _delta(value: float, digits: int = 0) -> str:
    return "±0" if round(value, digits) == 0 else f"{value:+,.{digits}f}"


class EvaluationView(QDialog):
    """The cases of one evaluation; ``openRunRequested(path)`` opens a case's run, and
    ``compareRequested(baseline, new)`` the two workflows' diff on the canvas."""

    openRunRequested = Signal(Path)
    compareRequested = Signal(Path, Path)

    def __init__(self, table: EvaluationTable, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_readable(self)  # never dragged down to a sliver
        self.data = table
        self.rows: list[CaseRow] = []
        self.setWindowTitle(f"Evaluation: {table.title}")
        self.resize(1100, 520)
        title = QLabel(f"<b>{table.title}</b><br>{table.subtitle}")
        title.setTextFormat(Qt.TextFormat.RichText)
        self.verdict = QComboBox()
        for key, text in FILTERS.items():
            self.verdict.addItem(text, key)
        self.tag = QComboBox()
        self.tag.addItem("All tags", None)
        for tag in table.tags():
            self.tag.addItem(tag, tag)
        self.verdict.currentIndexChanged.connect(self.refresh)
        self.tag.currentIndexChanged.connect(self.refresh)
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Show"))
        filters.addWidget(self.verdict)
        filters.addWidget(QLabel("Tag"))
        filters.addWidget(self.tag)
        filters.addStretch(1)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(lambda _i: self.open_side("new"))
        self.table.itemSelectionChanged.connect(self._enable)
        self.open_buttons = {}
        buttons = QHBoxLayout()
        for side in ("baseline", "new"):
            button = QPushButton(f"Open {side} run")
            button.clicked.connect(lambda _c=False, s=side: self.open_side(s))
            buttons.addWidget(button)
            self.open_buttons[side] = button
        flows = [table.root / "workflows" / f"{side}.flow.yaml" for side in ("baseline", "new")]
        compare = QPushButton("Compare workflows")
        compare.setToolTip("Draw on the canvas what the new workflow changes relative to "
                           "the baseline")
        compare.setEnabled(all(f.is_file() for f in flows))
        compare.clicked.connect(lambda: self.compareRequested.emit(*flows))
        buttons.addWidget(compare)
        report = QPushButton("Open HTML report")
        report.setEnabled((table.root / "report.html").is_file())
        report.clicked.connect(lambda: QDesktopServices.openUrl(
            QUrl.fromLocalFile(str(table.root / "report.html"))))
        buttons.addStretch(1)
        buttons.addWidget(report)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        if table.problems:
            problems = QLabel(f"{plural(len(table.problems), 'problem')} reading the results; "
                              f"the first: {table.problems[0]}")
            problems.setWordWrap(True)
            layout.addWidget(problems)
        layout.addLayout(buttons)
        self.refresh()

    def refresh(self) -> None:
        """Fill the table with the rows the filters let through."""
        self.rows = self.data.filtered(self.verdict.currentData(), self.tag.currentData())
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            d = row.deltas
            values = (row.case_id, row.verdict_text, row.baseline, row.new, row.risk,
                      _delta(d.get("turns", 0), 1),
                      _delta(d.get("input_tokens", 0) + d.get("output_tokens", 0)),
                      cost_delta_text(d.get("cost_usd", 0)),
                      _delta(d.get("duration_ms", 0) / 1000, 1),
                      ", ".join(row.tags))
            for c, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setToolTip(row.task)
                if c == 1 and row.verdict in VERDICT_COLORS:
                    item.setForeground(QColor(VERDICT_COLORS[row.verdict]))
                if 5 <= c <= 8:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        if self.rows:
            self.table.selectRow(0)
        self._enable()

    def selected(self) -> CaseRow | None:
        row = self.table.currentRow()
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def _enable(self) -> None:
        row = self.selected()
        for side, button in self.open_buttons.items():
            button.setEnabled(row is not None and row.runs.get(side) is not None)

    def open_side(self, side: str) -> None:
        """Open the selected case's run of ``side`` in the run views."""
        row = self.selected()
        path = row.runs.get(side) if row else None
        if path is not None:
            self.openRunRequested.emit(path)


def open_evaluation(window: QWidget, folder: str | Path, open_run: Callable[[Path], object],
                    show_error: Callable[[str, str], None]) -> EvaluationView | None:
    """Show the evaluation in ``folder`` over ``window``; a case's run opens through
    ``open_run``. None (and an error shown through ``show_error``) when it holds no
    results."""
    from desktop.eval.browse import load_evaluation
    from desktop.eval.reader import ResultsError

    try:
        table = load_evaluation(folder)
    except (ResultsError, OSError) as exc:
        show_error("Cannot open evaluation", str(exc))
        return None
    view = EvaluationView(table, window)
    view.openRunRequested.connect(open_run)
    view.compareRequested.connect(
        lambda baseline, new: compare_evaluation(window, table.title, baseline, new))
    view.show()
    return view


def compare_evaluation(window: QWidget, title: str, baseline: Path, new: Path) -> bool:
    """The evaluation's new workflow in a tab of its own (untitled: it is the record's
    copy), with the baseline's differences drawn over it."""
    from desktop.graph.errors import WorkflowLoadError
    from desktop.graph.io import load_workflow

    try:
        docs = [load_workflow(baseline), load_workflow(new)]
    except WorkflowLoadError as exc:
        window.show_error("Cannot compare",  # type: ignore[attr-defined]
                          "\n".join(str(p) for p in exc.problems))
        return False
    files = window.files  # type: ignore[attr-defined]
    # a pristine untitled tab takes it, rather than stay beside it as a useless extra
    target = window if files.is_blank() else files.document_window()
    target.file.new(docs[1])
    target.show()
    target.message(f"The new workflow of the evaluation {title}: save it to keep it")
    return target.compare.with_document(docs[0], f"the baseline of {title}")
