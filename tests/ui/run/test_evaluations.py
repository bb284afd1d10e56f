"""File > Open evaluation: the comparison as a table, filters, and each case's run opened
read-only in the run views."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop.graph.io import load_workflow
from desktop.ui.run.evaluations import COLUMNS, open_evaluation
from tests.eval.evalkit import EXAMPLE, run


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("evaluation") / "out"
    asyncio.run(run(EXAMPLE / "string-utils.suite.yaml", EXAMPLE / "baseline.flow.yaml",
                    EXAMPLE / "new.flow.yaml", out, concurrency=3))
    return out


def _window(window_for):
    window, panels = window_for(load_workflow(EXAMPLE / "baseline.flow.yaml"))
    errors: list[str] = []
    return window, panels, errors


def _open(window, panels, errors: list[str], folder: Path):
    return open_evaluation(window, folder, panels.open_run,
                           lambda _title, text: errors.append(text))


async def test_table_filters_and_opens_each_side(qloop, window_for, results, until) -> None:
    window, panels, errors = _window(window_for)
    view = _open(window, panels, errors, results)
    assert view is not None and not errors
    assert [r.case_id for r in view.rows] == ["clamp", "slugify", "readme"]
    assert [view.table.item(r, 1).text() for r in range(3)] == ["regressed", "fixed",
                                                               "passes"]
    assert view.table.item(0, 4).text() == "low → high"
    view.verdict.setCurrentIndex(view.verdict.findData("fixed"))
    assert [r.case_id for r in view.rows] == ["slugify"]
    view.verdict.setCurrentIndex(view.verdict.findData("all"))
    view.tag.setCurrentIndex(view.tag.findData("numbers"))
    assert [r.case_id for r in view.rows] == ["clamp"]

    clamp = view.rows[0]
    view.open_buttons["baseline"].click()
    assert panels.session is not None and panels.session.run_dir == clamp.runs["baseline"]
    await until(lambda: panels.session.model.rowCount() > 0)
    view.open_buttons["new"].click()
    assert panels.session.run_dir == clamp.runs["new"] != clamp.runs["baseline"]
    assert panels.session.live is False  # read-only: no engine of ours drives it
    view.close()


async def test_the_cost_column_shows_dollars(qloop, window_for, results) -> None:
    window, panels, errors = _window(window_for)
    view = _open(window, panels, errors, results)
    column = COLUMNS.index("Δ cost")
    texts = [view.table.item(r, column).text() for r in range(view.table.rowCount())]
    assert texts and all(t.lstrip("+-±").startswith("$") for t in texts), texts
    view.close()


async def test_a_folder_without_results_is_an_error(qloop, window_for, tmp_path) -> None:
    window, panels, errors = _window(window_for)
    assert _open(window, panels, errors, tmp_path) is None
    assert errors and "holds no baseline/<runId>/" in errors[0]


def test_the_file_menu_offers_it(editor_window) -> None:
    from desktop.ui.actions import ACTIONS

    spec = next(s for s in ACTIONS if s is not None and s.name == "open_evaluation")
    assert spec.menu == "File"
    assert spec.handler(editor_window) == editor_window.files.open_evaluation
