"""The inspector edits the selection through undoable commands and refuses bad values inline."""

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from wheel import wheel


def field(win, *path):
    return win.inspector.widgets[path][1]


def error(win, *path):
    return win.inspector.widgets[path][2]


def type_into(widget, text):
    widget.setFocus()
    widget.selectAll()
    QTest.keyClicks(widget, text)
    QTest.keyClick(widget, Qt.Key.Key_Return)


def test_edit_label_and_undo(example_window):
    win = example_window
    win.scene.select(["planner"])
    assert win.inspector.kind == "node" and win.inspector.target == "planner"
    type_into(field(win, "node", "label"), "Chief planner")
    assert win.editor.model.node("planner").label == "Chief planner"
    assert win.scene.nodes["planner"].label == "Chief planner"  # the canvas follows
    win.actions_["undo"].trigger()
    assert win.editor.model.node("planner").label == "Planner"
    assert field(win, "node", "label").text() == "Planner"  # the form follows undo too


def test_node_config_fields_and_limits(example_window):
    win = example_window
    win.scene.select(["implementer"])
    type_into(field(win, "config", "model"), "gpt-5")
    type_into(field(win, "config", "envAllowlist"), "PATH, HOME")
    type_into(field(win, "config", "limits", "timeoutSec"), "600")
    type_into(field(win, "config", "stallThreshold"), "4")
    cfg = win.editor.model.config("implementer")
    assert (cfg.model, cfg.env_allowlist, cfg.limits.timeout_sec, cfg.stall_threshold) == (
        "gpt-5", ["PATH", "HOME"], 600.0, 4)
    assert cfg.instructions.startswith("Implement the plan")  # untouched fields kept
    assert win.editor.undo_stack.count() == 4


def test_invalid_value_is_refused_inline(example_window):
    win = example_window
    win.scene.select(["implementer"])
    before = win.editor.model.config("implementer")
    type_into(field(win, "config", "stallThreshold"), "1")
    assert not error(win, "config", "stallThreshold").isHidden()
    assert "2" in error(win, "config", "stallThreshold").text()
    type_into(field(win, "config", "limits", "maxTurns"), "many")
    assert "whole number" in error(win, "config", "limits", "maxTurns").text()
    assert win.editor.model.config("implementer") == before
    assert win.editor.undo_stack.count() == 0


def test_capabilities_and_permissions(example_window):
    win = example_window
    win.scene.select(["reviewer"])
    box = field(win, "node", "capabilities", "writeCode")
    box.click()
    caps = win.editor.model.node("reviewer").capabilities
    assert caps is not None and caps.write_code == box.isChecked()
    combo = field(win, "node", "permissions", "cliPermissionsMode")
    combo.setCurrentText("gated")
    combo.activated.emit(combo.currentIndex())
    assert win.editor.model.node("reviewer").permissions.cli_permissions_mode == "gated"


def test_rename_node_id_keeps_edges_and_config(example_window):
    win = example_window
    win.scene.select(["implementer"])
    type_into(field(win, "node", "id"), "coder")
    model = win.editor.model
    assert model.has_node("coder") and not model.has_node("implementer")
    assert model.config("coder").instructions.startswith("Implement the plan")
    assert len(model.edges_of("coder")) == 3
    assert win.scene.selected_node_ids() == ["coder"]
    type_into(field(win, "node", "id"), "planner")  # taken: refused inline
    assert "already" in error(win, "node", "id").text()
    win.actions_["undo"].trigger()
    assert model.has_node("implementer") and len(model.edges_of("implementer")) == 3


def test_edge_fields(example_window):
    win = example_window
    key = win.editor.model.edge_keys()[0]
    win.scene.select([], [key])
    assert win.inspector.kind == "edge"
    combo = field(win, "edge", "type")
    combo.setCurrentText("report")
    combo.activated.emit(combo.currentIndex())
    field(win, "edge", "bidirectional").click()
    type_into(field(win, "edge", "label"), "the plan")
    edge = win.editor.model.edge(key)
    assert (edge.type, edge.bidirectional, edge.label) == ("report", True, "the plan")
    item = win.scene.edges[key]
    assert item.report and item.bidirectional and item.label == "the plan"


def test_workflow_fields_when_nothing_selected(example_window):
    win = example_window
    win.scene.select([])
    assert win.inspector.kind == "doc"
    type_into(field(win, "doc", "name"), "Renamed flow")
    assert win.editor.model.doc.name == "Renamed flow"
    assert "Renamed flow" in win.windowTitle()


def test_the_workflow_workspace_is_set_cleared_and_undone(example_window, tmp_path, qtbot):
    win = example_window
    win.scene.select([])
    file = tmp_path / "notes.txt"
    file.write_text("a file, not a folder\n", encoding="utf-8")
    type_into(field(win, "doc", "workspace"), "../project")
    assert win.editor.model.doc.workspace == "../project"
    type_into(field(win, "doc", "workspace"), str(file))  # a file: the problems say so
    assert win.editor.model.doc.workspace == str(file)
    qtbot.waitUntil(lambda: any(p.location == "workspace" and "is a file" in p.message
                                for p in win.problems.problems))
    win.editor.undo_stack.undo()
    assert win.editor.model.doc.workspace == "../project"
    field(win, "doc", "workspace").clear()
    type_into(field(win, "doc", "workspace"), "")
    assert win.editor.model.doc.workspace is None


def test_the_workflow_worktree_setup_is_set_refused_cleared_and_undone(example_window):
    win = example_window
    win.scene.select([])
    doc = win.editor.model.doc
    type_into(field(win, "doc", "worktreeSetup", "copy"), ".env, local")
    type_into(field(win, "doc", "worktreeSetup", "run"), "npm ci")
    assert (doc.worktree_setup.copy_, doc.worktree_setup.run) == ([".env", "local"], "npm ci")
    type_into(field(win, "doc", "worktreeSetup", "copy"), "../secrets")
    assert "leaves the workspace" in error(win, "doc", "worktreeSetup", "copy").text()
    assert doc.worktree_setup.copy_ == [".env", "local"]
    win.editor.undo_stack.undo()
    assert doc.worktree_setup.run is None and doc.worktree_setup.copy_ == [".env", "local"]
    field(win, "doc", "worktreeSetup", "copy").clear()
    type_into(field(win, "doc", "worktreeSetup", "copy"), "")
    assert doc.worktree_setup is None  # nothing left: no setup is written


def test_problem_shown_on_node_and_in_panel_click_selects(example_window):
    win = example_window
    win.scene.select(["implementer"])
    combo = field(win, "node", "provider")
    combo.setCurrentText("command")  # a command provider needs a command
    combo.activated.emit(combo.currentIndex())
    win.problems.refresh()
    assert win.scene.nodes["implementer"].problems[0] == 1
    assert "no command" in win.inspector.notes.text()
    win.scene.select([])
    row = next(i for i in range(win.problems.topLevelItemCount())
               if "no command" in win.problems.topLevelItem(i).text(2))
    win.problems.itemClicked.emit(win.problems.topLevelItem(row), 0)
    assert win.scene.selected_node_ids() == ["implementer"]


def test_sandbox_fields_create_edit_and_refuse(example_window):
    win = example_window
    win.scene.select(["implementer"])
    type_into(field(win, "config", "model"), "gpt-5")
    assert win.editor.model.config("implementer").sandbox is None  # defaults not written
    combo = field(win, "config", "sandbox", "backend")
    combo.setCurrentText("process")
    combo.activated.emit(combo.currentIndex())
    net = field(win, "config", "sandbox", "network")
    assert net.isChecked()  # the default shown: network on
    net.click()
    type_into(field(win, "config", "sandbox", "writeRoots"), "build, dist")
    type_into(field(win, "config", "sandbox", "limits", "maxMemoryMb"), "512")
    box = win.editor.model.config("implementer").sandbox
    assert (box.backend, box.network, box.write_roots, box.limits.max_memory_mb) == (
        "process", False, ["build", "dist"], 512)
    before = win.editor.model.config("implementer")
    type_into(field(win, "config", "sandbox", "writeRoots"), "../escape")
    assert "leaves the workspace" in error(win, "config", "sandbox", "writeRoots").text()
    type_into(field(win, "config", "sandbox", "limits", "maxMemoryMb"), "0")
    assert not error(win, "config", "sandbox", "limits", "maxMemoryMb").isHidden()
    assert win.editor.model.config("implementer") == before
    win.actions_["undo"].trigger()
    assert win.editor.model.config("implementer").sandbox.limits.max_memory_mb is None


def test_executor_fields_for_the_workflow_and_a_node(example_window):
    win = example_window
    win.scene.select([])
    type_into(field(win, "doc", "executor"), "ray://head.example:10001")
    doc = win.editor.model.doc
    assert (doc.executor.kind, doc.executor.address) == ("ray", "ray://head.example:10001")
    type_into(field(win, "doc", "executor", "resources", "numCpus"), "0.5")
    type_into(field(win, "doc", "executor"), "ray://other:10001")  # keeps the resources
    doc = win.editor.model.doc
    assert (doc.executor.address, doc.executor.resources.num_cpus) == ("ray://other:10001", 0.5)
    win.scene.select(["reviewer"])
    type_into(field(win, "config", "executor", "resources", "memoryMb"), "512")
    assert "Ray address" in error(win, "config", "executor", "resources", "memoryMb").text()
    type_into(field(win, "config", "executor"), "local")
    assert win.editor.model.config("reviewer").executor == "local"
    type_into(field(win, "config", "executor"), "k8s://nope")
    assert "ray://HOST:PORT" in error(win, "config", "executor").text()
    assert win.editor.model.config("reviewer").executor == "local"
    field(win, "config", "executor").clear()
    type_into(field(win, "config", "executor"), "")
    assert win.editor.model.config("reviewer").executor is None  # back to the workflow's
    win.actions_["undo"].trigger()
    assert field(win, "config", "executor").text() == "local"


def test_attempts_and_judge_fields(example_window):
    win = example_window
    win.scene.select(["implementer"])
    type_into(field(win, "config", "attempts"), "3")
    assert win.editor.model.config("implementer").attempts == 3
    type_into(field(win, "config", "attempts"), "fast, scripted:big")
    overrides = win.editor.model.config("implementer").attempts
    assert [o.to_json_dict() for o in overrides] == [{"model": "fast"},
                                                     {"provider": "scripted", "model": "big"}]
    assert field(win, "config", "attempts").text() == "fast, scripted:big"
    type_into(field(win, "config", "attempts"), "9")
    assert "2 to 8" in error(win, "config", "attempts").text()
    type_into(field(win, "config", "judge"), "reviewer")
    assert win.editor.model.config("implementer").judge == "reviewer"
    field(win, "config", "judge").clear()
    type_into(field(win, "config", "judge"), "")
    assert win.editor.model.config("implementer").judge == "user"  # empty: the default


def test_worktree_setup_fields_create_edit_refuse_and_clear(example_window):
    win = example_window
    win.scene.select(["implementer"])
    assert win.editor.model.config("implementer").worktree_setup is None
    type_into(field(win, "config", "worktreeSetup", "copy"), ".env, config/local.yaml")
    type_into(field(win, "config", "worktreeSetup", "run"), "npm ci")
    setup = win.editor.model.config("implementer").worktree_setup
    assert (setup.copy_, setup.run) == ([".env", "config/local.yaml"], "npm ci")
    before = win.editor.model.config("implementer")
    type_into(field(win, "config", "worktreeSetup", "copy"), "../secrets")
    assert "leaves the workspace" in error(win, "config", "worktreeSetup", "copy").text()
    assert win.editor.model.config("implementer") == before
    for name in ("copy", "run"):
        widget = field(win, "config", "worktreeSetup", name)
        widget.setFocus()
        widget.selectAll()
        QTest.keyClick(widget, Qt.Key.Key_Delete)
        QTest.keyClick(widget, Qt.Key.Key_Return)
    setup = win.editor.model.config("implementer").worktree_setup
    assert setup is None or (setup.copy_, setup.run) == ([], None)


def test_scrolling_the_form_over_a_combo_box_changes_nothing(example_window):
    win = example_window
    win.scene.select(["implementer"])
    combo = field(win, "node", "capabilities", "edgeManagement")
    before = (win.editor.model.node("implementer"), combo.currentIndex())
    win.setFocus()
    wheel(combo, 2)
    assert (win.editor.model.node("implementer"), combo.currentIndex()) == before
    assert win.editor.undo_stack.count() == 0
    combo.setFocus()  # chosen on purpose (a click or Tab): the wheel picks
    wheel(combo, 1)
    assert combo.currentIndex() != before[1]
    assert win.editor.undo_stack.count() == 1


def test_the_id_field_is_no_longer_marked_once_its_value_is_put_back(example_window):
    """A refused id marks the field; typing the node's own id back clears the message and
    the red outline both (nothing changed, so nothing was applied to clear them)."""
    win = example_window
    win.scene.select(["implementer"])
    widget = field(win, "node", "id")
    type_into(widget, "Bad Id!!")
    assert not error(win, "node", "id").isHidden() and widget.property("invalid") is True
    type_into(widget, "implementer")
    assert error(win, "node", "id").isHidden()
    assert widget.property("invalid") is False
    assert win.editor.undo_stack.count() == 0


def test_a_long_workflow_name_is_cut_to_a_few_lines_in_the_title(editor_window, tmp_path):
    from desktop.graph.resources import examples_dir

    name = ("A workflow whose name goes on and on " * 9)[:314]
    path = tmp_path / "long.flow.yaml"
    path.write_text((examples_dir() / "single-agent.flow.yaml").read_text().replace(
        "name: Single agent", f"name: {name}", 1))
    assert editor_window.files.open_path(path)
    title = editor_window.inspector.title
    assert editor_window.inspector.kind == "doc"
    lines = title.heightForWidth(title.width()) / title.fontMetrics().lineSpacing()
    assert lines <= 4, lines
    assert title.text().endswith("…")
    assert title.toolTip() == name  # the whole name, when the title leaves some out
