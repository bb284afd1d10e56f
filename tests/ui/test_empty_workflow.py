"""An empty workflow is not an error the user made: the Problems panel, its tab, the status
bar and the Inspector say there is nothing to run yet and how to add an agent, where they
said "1 error" in red. The validator (and so `agent-canvas validate` and Run) still
refuses to run it, and any real error of an empty workflow is still counted."""

from __future__ import annotations

from desktop.graph.document import WorkflowDocument
from desktop.graph.validate import validate


def _says_nothing_yet(win) -> None:
    panel = win.problems
    assert panel.problems == [] and panel.counts() == (0, 0)
    assert panel.topLevelItemCount() == 0
    assert panel.empty.isVisibleTo(panel)
    assert panel.empty.text().startswith("Nothing to run yet. Add an agent: double-click")
    assert win.problems_label.text() == "Nothing to run yet: add an agent"
    assert "error" not in win.problems_label.text()
    assert win.docks["problems"].windowTitle() == "Problems"
    assert not win.inspector.notes.isVisibleTo(win.inspector)  # no red line there either


def test_a_new_workflow_says_what_to_do_not_1_error(editor_window, qtbot) -> None:
    win = editor_window
    assert not win.editor.model.doc.nodes
    _says_nothing_yet(win)
    # the validator the CLI uses still refuses it: nothing to run is not a valid run
    assert [p.message for p in validate(win.editor.model.doc) if p.is_error] == [
        "the workflow has no nodes"]
    assert win.run_panels.preflight.refuse(win.editor.model.doc)
    refusal = win.info.label.text()
    assert refusal.startswith("Nothing to run yet") and "error" not in refusal
    win.info.hide()
    win.editor.add_node("planner", at=(0, 0))
    win.problems.refresh()
    assert not win.problems.nothing_yet
    assert win.problems_label.text() == "✓ No problems"
    win.actions_["undo"].trigger()  # all nodes gone again: the same words, no error
    win.problems.refresh()
    _says_nothing_yet(win)


def test_an_empty_workflow_with_a_real_error_still_counts_it(editor_window) -> None:
    win = editor_window
    win.file.new(WorkflowDocument.model_validate(
        {"name": "x", "nodes": [], "edges": [{"from": "a", "to": "b"}]}))
    win.problems.refresh()
    errors, _warnings = win.problems.counts()
    assert errors >= 1 and all(p.location.startswith("edges") for p in win.problems.problems)
    assert "error" in win.problems_label.text()
    assert win.run_panels.preflight.refuse(win.editor.model.doc)
    assert win.info.label.text().startswith("Not started: the workflow has")
