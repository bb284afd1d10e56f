"""Run history's Open, Replay and Run again act on one selected run: with none (or
several) selected they are disabled, and a click never does nothing silently."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QItemSelectionModel, Qt
from test_history_filter import RUNS, _write_run

from desktop.ui.run.history import RunHistory


def _history(qtbot, data: Path) -> RunHistory:
    if not (data / "runs").exists():
        for run in RUNS:
            _write_run(data, *run)
    history = RunHistory(data)
    qtbot.addWidget(history)
    history.refresh()
    return history


def _buttons(history: RunHistory) -> dict[str, bool]:
    return {b.text().replace("&", ""): b.isEnabled() for b in history.run_buttons}


def test_with_no_run_selected_the_buttons_are_disabled(qtbot, tmp_path: Path) -> None:
    history = _history(qtbot, tmp_path)
    assert _buttons(history) == {"Open": False, "Replay": False, "Run again": False}
    history.table.selectRow(2)
    assert _buttons(history) == {"Open": True, "Replay": True, "Run again": True}
    opened: list[Path] = []
    history.openRequested.connect(opened.append)
    qtbot.mouseClick(history.run_buttons[0], Qt.MouseButton.LeftButton)
    assert opened == [history.rows[2].path]
    history.table.clearSelection()  # the current cell stays, but nothing is selected
    assert history.table.currentRow() == 2
    assert _buttons(history) == {"Open": False, "Replay": False, "Run again": False}
    history.filter.search.setText("")
    history.refresh()  # a refresh keeps (no) selection and the buttons with it
    assert not any(_buttons(history).values())


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picked=st.sets(st.integers(0, len(RUNS) - 1)),
       search=st.sampled_from(["", "single", "orch", "no run says this"]))
def test_the_buttons_follow_the_one_selected_shown_run(qtbot, tmp_path_factory, picked,
                                                       search) -> None:
    history = _history(qtbot, tmp_path_factory.mktemp("runs"))
    model = history.table.selectionModel()
    for r in picked:
        model.select(history.table.model().index(r, 0),
                     QItemSelectionModel.SelectionFlag.Select
                     | QItemSelectionModel.SelectionFlag.Rows)
    history.filter.search.setText(search)
    shown = [r for r in sorted(picked) if not history.table.isRowHidden(r)]
    one = len(shown) == 1
    assert all(enabled == one for enabled in _buttons(history).values())
    asked: list[Path] = []
    for signal in (history.openRequested, history.replayRequested, history.runAgainRequested):
        signal.connect(asked.append)
    for button in history.run_buttons:
        button.click()  # a disabled button's click does nothing, as the user sees
    assert asked == ([history.rows[shown[0]].path] * 3 if one else [])


def test_the_last_column_fills_the_table_after_each_refresh(qtbot, tmp_path: Path) -> None:
    """Fitting the columns to their text on a refresh left the last one as narrow as its
    text, the table ending halfway across the panel."""
    history = _history(qtbot, tmp_path)
    history.resize(1400, 400)
    history.show()
    qtbot.waitExposed(history)
    header = history.table.horizontalHeader()
    last = header.count() - 1

    def right_edge() -> int:
        return header.sectionViewportPosition(last) + header.sectionSize(last)

    for rows in (history.rows, history.rows[:2], history.rows):
        history.show_rows(rows)
        qtbot.waitUntil(lambda: right_edge() == history.table.viewport().width())
