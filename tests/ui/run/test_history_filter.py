"""Run history filtered by workflow and status, and searched by what a row says."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from desktop.ui.run.history import HistoryRow, RunHistory
from desktop.ui.run.history_filter import LIVE, HistoryQuery, row_matches

RUNS = [  # workflow, final event, minute it started
    ("Plan, implement, review", "run.completed", 1),
    ("Plan, implement, review", "run.failed", 2),
    ("Single agent", "run.completed", 3),
    ("Orchestrator", "run.stopped", 4),
    ("Single agent", "run.failed", 5),
]


def _write_run(data: Path, workflow: str, last: str, minute: int) -> Path:
    run_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"run-{minute}"))
    folder = data / "runs" / run_id
    folder.mkdir(parents=True)
    ts = f"2026-03-0{minute}T10:{minute:02d}:00.000Z"
    events = [
        {"type": "run.created", "workflowName": workflow, "task": "t", "nodes": {},
         "edges": {}},
        {"type": "run.started"},
        {"type": last},
    ]
    with (folder / "events.jsonl").open("w") as out:
        for seq, event in enumerate(events, 1):
            out.write(json.dumps({"id": str(uuid.uuid4()), "runId": run_id, "seq": seq,
                                  "ts": ts, **event}) + "\n")
    return folder


def _shown(history: RunHistory) -> list[tuple[str, str]]:
    return [(row.workflow, row.status) for r, row in enumerate(history.rows)
            if not history.table.isRowHidden(r)]


def test_filter_by_workflow_status_and_search(qtbot, tmp_path: Path) -> None:
    folders = [_write_run(tmp_path, *run) for run in RUNS]
    history = RunHistory(tmp_path)
    qtbot.addWidget(history)
    history.refresh()
    bar = history.filter
    assert len(_shown(history)) == 5 and bar.count.text() == "5 runs"
    names = [bar.workflow.itemText(i) for i in range(bar.workflow.count())]
    assert names == ["All workflows", "Orchestrator", "Plan, implement, review", "Single agent"]

    bar.workflow.setCurrentIndex(bar.workflow.findData("Single agent"))
    assert sorted(_shown(history)) == [("Single agent", "completed"), ("Single agent", "failed")]
    bar.status.setCurrentIndex(bar.status.findData("failed"))
    assert _shown(history) == [("Single agent", "failed")]
    assert bar.count.text() == "1 of 5 runs"

    bar.workflow.setCurrentIndex(0)
    assert sorted(_shown(history)) == [("Plan, implement, review", "failed"),
                                       ("Single agent", "failed")]
    bar.status.setCurrentIndex(0)
    qtbot.keyClicks(bar.search, "ORCH stop")  # every word, any case
    assert _shown(history) == [("Orchestrator", "stopped")]
    bar.search.setText(folders[1].name[:8])  # a run id (prefix)
    assert _shown(history) == [("Plan, implement, review", "failed")]
    bar.search.setText("2026-03-03")  # the day it started
    assert _shown(history) == [("Single agent", "completed")]
    bar.search.clear()

    # the filter holds across a refresh, and a new run of a new workflow is offered
    bar.status.setCurrentIndex(bar.status.findData("completed"))
    _write_run(tmp_path, "Brand new", "run.completed", 6)
    history.refresh()
    assert sorted(_shown(history)) == [("Brand new", "completed"),
                                       ("Plan, implement, review", "completed"),
                                       ("Single agent", "completed")]
    assert bar.workflow.findData("Brand new") > 0


def test_a_hidden_row_is_not_what_open_acts_on(qtbot, tmp_path: Path) -> None:
    for run in RUNS:
        _write_run(tmp_path, *run)
    history = RunHistory(tmp_path)
    qtbot.addWidget(history)
    history.refresh()
    history.table.selectRow(0)
    assert history.selected() is not None
    opened: list[Path] = []
    history.openRequested.connect(opened.append)
    history.filter.search.setText("no run says this")
    history._emit(history.openRequested)
    assert opened == []


_rows = st.builds(
    HistoryRow, path=st.builds(Path, st.from_regex(r"[0-9a-f]{8}", fullmatch=True)),
    workflow=st.sampled_from(["A", "B flow", "Cé"]),
    status=st.sampled_from(["completed", "failed", "running"]), started=st.just("2026-01-01"),
    duration=st.none(), tokens=st.just(0), cost=st.none(), events=st.just(1),
    live=st.booleans())


@given(_rows, st.sampled_from([None, "A", "B flow", "Cé"]),
       st.sampled_from([None, LIVE, "completed", "failed", "running"]), st.text(max_size=8))
def test_a_row_passes_only_what_was_asked(row, workflow, status, text) -> None:
    query = HistoryQuery(workflow, status, text)
    ok = row_matches(row, query)
    if workflow is not None and row.workflow != workflow:
        assert not ok
    if status == LIVE and not row.live:
        assert not ok
    if status not in (None, LIVE) and row.status != status:
        assert not ok
    if workflow is None and status is None and not text.strip():
        assert ok
    # narrowing the search never brings a row back
    assert not (row_matches(row, HistoryQuery(workflow, status, text + " zzzqqq")) and not ok)


def test_a_run_under_a_second_says_so_in_duration(qtbot, tmp_path: Path) -> None:
    """A run that took under a second reads "<1 s", not "0:00" (no time at all)."""
    from desktop.ui.run.history import COLUMNS

    _write_run(tmp_path, "Single agent", "run.completed", 3)  # all its events at one time
    history = RunHistory(tmp_path)
    qtbot.addWidget(history)
    history.refresh()
    assert history.table.item(0, COLUMNS.index("Duration")).text() == "<1 s"


def test_a_long_workflow_name_keeps_to_a_capped_column_and_is_whole_in_its_tooltip(
        qtbot, tmp_path: Path) -> None:
    name = ("A workflow whose name goes on and on " * 9)[:314]
    _write_run(tmp_path, name, "run.completed", 1)
    _write_run(tmp_path, "Single agent", "run.failed", 2)
    history = RunHistory(tmp_path)
    qtbot.addWidget(history)
    history.resize(900, 300)
    history.show()
    history.refresh()
    table = history.table
    r = next(i for i, row in enumerate(history.rows) if row.workflow == name)
    # the other columns stay in view beside it
    assert sum(table.columnWidth(c) for c in range(table.columnCount() - 1)) \
        < table.viewport().width()
    assert table.columnWidth(0) < table.fontMetrics().horizontalAdvance(name)
    assert table.item(r, 0).toolTip().startswith(name + "\n")
    bar = history.filter
    bar.workflow.setCurrentIndex(bar.workflow.findData(name))
    assert _shown(history) == [(name, "completed")]  # picked by its whole name


def test_a_huge_workflow_name_reaches_the_table_cut_short(qtbot, tmp_path: Path) -> None:
    """A cell, its tooltip and the workflow picker get a bounded part of a name of four
    million characters: Qt measures every character it is given."""
    name = "huge " * 800_000
    _write_run(tmp_path, name, "run.completed", 1)
    history = RunHistory(tmp_path)
    qtbot.addWidget(history)
    history.refresh()
    assert history.rows[0].workflow == name
    texts = [history.table.item(0, 0).text(), history.filter.workflow.itemText(1)]
    assert all(0 < len(text) <= 600 for text in texts), [len(t) for t in texts]
    assert len(history.table.item(0, 0).toolTip()) < 1000
