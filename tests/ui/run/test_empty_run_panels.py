"""The Diffs and Record panels say they are empty (no run shown, or nothing in it yet)
instead of showing blank panes that look broken."""

from __future__ import annotations

import json

from desktop.graph.resources import examples_dir
from desktop.ui.run.diff_view import NO_DIFFS, DiffView
from desktop.ui.run.record_view import NO_RECORDS, RecordView

PATCH = ("diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n"
         "@@ -1 +1 @@\n-old\n+new\n")


def test_diffs_say_there_is_none_until_one_is_shown_and_again_for_the_next_run(qtbot):
    view = DiffView()
    qtbot.addWidget(view)
    assert view.unified.toPlainText() == NO_DIFFS
    view.set_diff(PATCH)
    assert "+new" in view.unified.toPlainText()
    view.clear()  # another run is shown (or none)
    assert view.unified.toPlainText() == NO_DIFFS


def test_the_record_says_there_is_no_agent_run_until_there_is(qtbot, past_run):
    view = RecordView()
    qtbot.addWidget(view)
    view.resize(900, 300)
    view.show()
    qtbot.waitExposed(view)
    assert view.empty.isVisible() and view.empty.text() == NO_RECORDS
    assert not view.note.isVisible(), "no row to double-click: no hint to"
    run_dir = past_run(examples_dir() / "single-agent.flow.yaml", "single")
    view.update_run(run_dir, json.loads((run_dir / "state.json").read_text()))
    assert view.rows and not view.empty.isVisible()
    assert view.note.isVisible() and view.note.text().startswith("Double-click")
    view.clear()
    assert view.empty.isVisible() and not view.note.isVisible()
