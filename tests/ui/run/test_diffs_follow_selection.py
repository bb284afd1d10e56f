"""The Diffs tab follows the canvas selection, as the Conversation tab does; its node list
still picks another node, or every node."""

from __future__ import annotations

from desktop.graph.resources import examples_dir

PIR = examples_dir() / "plan-implement-review.flow.yaml"


def _titles(diffs) -> list[str]:
    return [diffs.source.itemText(i) for i in range(diffs.source.count())]


def test_selecting_a_node_shows_its_diffs(example_window, past_run):
    window = example_window
    run_dir = past_run(PIR, "pir")
    session = window.show_run(run_dir)
    assert session is not None and window.run_panels.session is session
    panels = window.run_panels
    diffs, conversation = panels.diffs, panels.conversation
    ids = {n["key"]: nid for nid, n in session.state["nodes"].items()}
    assert len(_titles(diffs)) == 3  # every node's turns while nothing is selected

    window.scene.select(["planner"])
    assert diffs.node == ids["planner"] == conversation.node
    assert diffs.node_combo.currentText() == "Planner"
    assert [t.split(" · ")[0] for t in _titles(diffs)] == ["Planner"]
    assert [f.path for f in diffs.files] == ["PLAN.md"]

    window.scene.select(["implementer"])
    assert diffs.node == ids["implementer"]
    assert [t.split(" · ")[0] for t in _titles(diffs)] == ["Implementer", "Implementer"]
    assert {f.path for f in diffs.files} == {"greet.py", "test_greet.py"}  # its newest turn

    window.scene.select(["reviewer"])  # no diff of its own: said so, nothing else shown
    assert diffs.node == ids["reviewer"] and _titles(diffs) == [] and diffs.files == []
    assert "no diff from Reviewer" in diffs.unified.toPlainText()

    # the node list still pins another node, whatever the canvas selects
    diffs.node_combo.setCurrentIndex(diffs.node_combo.findData(ids["planner"]))
    assert [f.path for f in diffs.files] == ["PLAN.md"]
    diffs.node_combo.setCurrentIndex(0)  # All nodes
    assert len(_titles(diffs)) == 3

    window.scene.select([])  # nothing selected: every node's again
    assert diffs.node is None and len(_titles(diffs)) == 3


def test_a_pinned_view_keeps_its_node_while_the_others_follow(example_window, past_run):
    window = example_window
    session = window.show_run(past_run(PIR, "pinned"))
    panels = window.run_panels
    ids = {n["key"]: nid for nid, n in session.state["nodes"].items()}
    window.scene.select(["planner"])
    panels.diffs.pin.click()  # keep the planner's diffs here
    window.scene.select(["implementer"])
    assert panels.diffs.node == ids["planner"]
    assert [f.path for f in panels.diffs.files] == ["PLAN.md"]
    assert panels.conversation.node == ids["implementer"]  # not pinned: it follows
    assert panels.transcript.node_combo.currentData() == ids["implementer"]
    panels.conversation.pin.click()
    panels.transcript.pin.click()
    window.scene.select(["reviewer"])
    assert panels.conversation.node == ids["implementer"]
    assert panels.transcript.node_combo.currentData() == ids["implementer"]
    panels.diffs.pin.click()  # unpinned: it follows the next selection again
    window.scene.select(["implementer"])
    assert panels.diffs.node == ids["implementer"]


def test_the_record_tab_lists_the_selected_nodes_agent_runs(qloop, example_window, past_run):
    window = example_window
    session = window.show_run(past_run(PIR, "record"))
    record = window.run_panels.record
    every = [r.agent_run_id for r in record.rows]
    assert len(every) == sum(session.state["turns"].values())  # one record per turn
    window.scene.select(["reviewer"])
    rows = record.rows
    assert {r.node for r in rows} == {"reviewer"} and len(rows) == 2
    assert all(r.exit_code == 0 and r.runner_hash.startswith("sha256:") for r in rows)
    shown = [record.table.topLevelItem(i).text(0) for i in range(record.table.topLevelItemCount())]
    assert shown == [r.agent_run_id for r in rows]
    (rows[0].folder / "runner.json").write_text("{not json")  # a broken record is a row
    record.refresh()
    broken = next(r for r in record.rows if r.agent_run_id == rows[0].agent_run_id)
    assert broken.runner_hash is None and "runner.json" in broken.problem


def test_opening_a_run_reads_its_log_once(example_window, past_run, monkeypatch):
    from desktop.views.events import FileEvents
    from desktop.views.reader import LogTail

    run_dir = past_run(PIR, "once")
    reads: list[str] = []
    whole, tail = FileEvents.read_all, LogTail.__init__

    def read_all(self):
        reads.append("whole log")
        return whole(self)

    def tailed(self, *args, **kwargs):
        reads.append("tail")
        tail(self, *args, **kwargs)

    monkeypatch.setattr(FileEvents, "read_all", read_all)
    monkeypatch.setattr(LogTail, "__init__", tailed)
    session = example_window.show_run(run_dir)
    assert session is not None and session.state["status"] == "completed"
    assert reads == ["whole log"]  # the fold, the transcript and every panel share it
    assert len(example_window.run_panels.diffs.diffs) == 3  # and the panels have it all
