"""Fork from the replay scrubber, the tree of forks in Run history, and Compare."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractItemView, QLabel

from desktop.graph.io import load_workflow
from desktop.ui.run.compare_view import CompareView
from desktop.ui.run.fork_dialog import CHANGED, ForkDialog
from desktop.ui.run.history import RunHistory
from desktop.ui.run.timeline import TimelineScrubber
from desktop.views.compare import digest_run
from desktop.views.forks import scan_run
from desktop.views.reader import EventReader
from desktop.views.replay import ReplayState
from desktop.views.runs import open_run

PIR = Path(__file__).parents[3] / "resources" / "examples" / "plan-implement-review.flow.yaml"


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "desktop", *args], capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A run of the example, a fork of it (the reviewer's instructions changed), and a
    fork of that fork, in one data folder of their own."""
    data = tmp_path_factory.mktemp("family")
    _cli("run", str(PIR), "--data-dir", str(data))
    source = next((data / "runs").iterdir())
    reviewer = next(p for p in scan_run(source).points if p.label == "Reviewer")
    said = _cli("fork", source.name, "--at", str(reviewer.seq), "--node", "reviewer",
                "--instructions", "Be strict about empty names.", "--data-dir", str(data))
    fork = data / "runs" / said.split(" as ", 1)[1].split(":", 1)[0]
    said = _cli("fork", fork.name, "--at", "1", "--data-dir", str(data))
    grandchild = data / "runs" / said.split(" as ", 1)[1].split(":", 1)[0]
    return {"data": data, "source": source, "fork": fork, "grandchild": grandchild}


def test_history_lists_forks_under_their_source_and_compares_them(qtbot, family) -> None:
    history = RunHistory(family["data"])
    qtbot.addWidget(history)
    history.refresh()
    names = [row.path.name for row in history.rows]
    assert names == [family[k].name for k in ("source", "fork", "grandchild")]
    assert [row.depth for row in history.rows] == [0, 1, 2]
    cells = [history.table.item(r, 0).text() for r in range(3)]
    assert cells[0] == "Plan, implement, review"
    assert cells[1] == "└─ Plan, implement, review"
    assert cells[2].startswith("    └─ ")
    assert history.table.item(1, 7).text().startswith(family["source"].name[:8] + " @ ")
    assert not history.compare_button.isEnabled()
    history.table.selectRow(1)
    assert history.compare_button.isEnabled()
    with qtbot.waitSignal(history.compareRequested) as blocker:
        history.compare_button.click()
    assert blocker.args == [family["source"], family["fork"]]
    # two runs picked: the source on the left, whichever was picked first
    history.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
    history.table.clearSelection()
    history.table.selectRow(2)
    history.table.selectRow(1)
    pair = history.compare_pair()
    assert pair is not None and [p.path for p in pair] == [family["fork"], family["grandchild"]]


def test_the_fork_button_follows_the_loaded_run(qtbot, family) -> None:
    timeline = TimelineScrubber()
    qtbot.addWidget(timeline)
    assert not timeline.fork_button.isEnabled()
    timeline.load(family["source"])
    assert timeline.fork_button.isEnabled()
    timeline.seek(30)
    with qtbot.waitSignal(timeline.forkRequested) as blocker:
        timeline.fork_button.click()
    assert blocker.args == [30]
    timeline.close_run()
    assert not timeline.fork_button.isEnabled()


def _dialog(qtbot, run_dir: Path, seq: int) -> ForkDialog:
    snap = scan_run(run_dir).snap(seq)
    replay = ReplayState(run_dir)
    state = replay.state_at(snap.point.seq)
    replay.close()
    dialog = ForkDialog(state, snap, "Plan, implement, review")
    qtbot.addWidget(dialog)
    return dialog


def test_the_dialog_says_where_the_fork_lands_and_returns_only_changes(qtbot, family) -> None:
    source = family["source"]
    reviewer = next(p for p in scan_run(source).points if p.label == "Reviewer")
    dialog = _dialog(qtbot, source, reviewer.seq + 4)
    where = dialog.findChild(QLabel, "forkPoint")
    assert f"inside a turn; the fork continues from seq {reviewer.seq}" in where.text()
    assert f"Events 1 to {reviewer.seq} are copied" in where.text()
    assert dialog.node_list.currentItem().text() == "Reviewer"  # the node whose turn is next
    assert (dialog.node_edits(), dialog.item_edits()) == ([], [])
    dialog.instructions.setPlainText("Look for the empty-name check.")
    dialog.model.setText("big-1")
    assert dialog.node_list.currentItem().text() == "Reviewer" + CHANGED
    dialog.node_list.setCurrentRow(0)  # another node, then back: the edit is kept
    assert dialog.instructions.toPlainText() != "Look for the empty-name check."
    dialog.node_list.setCurrentRow(2)
    assert dialog.instructions.toPlainText() == "Look for the empty-name check."
    assert dialog.item_list.count() == 1
    dialog.item_text.setPlainText("Review greet.py, please.")
    assert dialog.node_edits() == [{"node": reviewer.node_id,
                                    "instructions": "Look for the empty-name check.",
                                    "model": "big-1"}]
    item = dialog.queued[0][1]
    assert dialog.item_edits() == [{"itemId": item["id"], "text": "Review greet.py, please."}]


def test_compare_aligns_turns_and_shows_the_change_and_what_was_copied(qtbot, family) -> None:
    view = CompareView(digest_run(family["source"]), digest_run(family["fork"]))
    qtbot.addWidget(view)
    view.show()
    assert view.changes.text() == "Set up differently: Reviewer: instructions"
    assert view.turns.rowCount() == 6
    verdicts = [view.turns.item(r, 4).text() for r in range(6)]
    assert verdicts[:2] == ["copied", "copied"] and set(verdicts[2:]) == {"same"}
    assert "(2 copied)" in view.summary.item(3, 1).text()
    assert view.summary.item(2, 1).text().startswith(family["source"].name[:8])
    view.turns.setCurrentCell(1, 0)
    assert "Implementer, turn 1" in view.left_detail.toPlainText()
    assert "— its diff —\ndiff --git a/greet.py" in view.right_detail.toPlainText()
    assert not view.left_graph.grab().isNull()


def test_fork_from_the_scrubber_runs_the_fork_in_the_service(qloop, window_for, until,
                                                             own_service) -> None:
    _window, panels = window_for(load_workflow(PIR), own_service.data_dir)

    async def run_source():
        await panels.run()
        await until(lambda: (panels.session.state or {}).get("status") == "completed")

    qloop.run_until_complete(run_source())
    source = panels.session.run_dir
    panels.replay(source)  # from the API's events while the service still holds the run
    qloop.run_until_complete(until(lambda: panels.timeline.replay is not None))
    reviewer = next(p for p in scan_run(source).points if p.label == "Reviewer")
    panels.timeline.seek(reviewer.seq + 3)
    dialog = panels.forks.fork_from(panels.timeline.current)
    assert dialog is not None and dialog.snap.point == reviewer
    dialog.instructions.setPlainText("Be strict.")
    dialog.accept()

    async def forked():
        await until(lambda: panels.session is not None and panels.session.run_dir != source
                    and (panels.session.state or {}).get("status") == "completed")

    qloop.run_until_complete(forked())
    fork = panels.session.run_dir
    state = open_run(fork)
    assert state.forked_from is not None and state.forked_from.run_id == source.name
    assert state.forked_from.seq == reviewer.seq
    assert state.node_configs[reviewer.node_id].instructions == "Be strict."
    first = next(EventReader(fork).iter_events())
    assert first["forkedFrom"] == {"runId": source.name, "seq": reviewer.seq}
    assert not panels.replaying and panels.session.live
    assert [row.path for row in panels.history.rows][:2] == [source, fork]
    assert "Forked as" in panels.window.statusBar().currentMessage()
