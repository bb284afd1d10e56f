"""A run's graph in a tab of its own is read-only: keys, gestures, menus, the palette, a
paste and the Inspector's fields all leave it as the run recorded it (the tab never gets
a ``*``, nothing asks to be saved); Save As makes it a workflow of the user's to edit.
The question about unsaved changes names the document as its tab does."""

from __future__ import annotations

import asyncio

import pytest
from canvas_helpers import drag, node_center, out_port
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from shiboken6 import isValid

from desktop.graph.io import dumps_workflow
from desktop.graph.resources import examples_dir
from desktop.ui.close_dialog import CloseAnswer
from desktop.ui.palette import entries
from desktop.ui.read_only import EDIT_ACTIONS
from desktop.ui.tabs import TabbedWindow
from desktop.ui.window import EditorWindow

PIR = examples_dir() / "plan-implement-review.flow.yaml"
CHAIN = """
version: 1
name: Chain of three
description: A hands to B; C stands apart.
task: pass it on
nodes:
  - {id: a, label: A, provider: scripted, entry: true, position: {x: 0, y: 0}}
  - {id: b, label: B, provider: scripted, position: {x: 300, y: 0}}
  - {id: c, label: C, provider: scripted, position: {x: 300, y: 240}}
nodeConfigs:
  a: {script: [{say: over to B}]}
  b: {script: [{say: done}]}
edges:
  - {from: a, to: b, type: handoff}
"""


@pytest.fixture
def shell(qtbot, monkeypatch, tmp_path):
    window = TabbedWindow()  # closed below, once its tabs are told to discard their edits
    path = tmp_path / PIR.name
    path.write_bytes(PIR.read_bytes())
    first = EditorWindow()
    assert first.files.open_path(path)
    window.add(first)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    yield window
    for editor in window.editors() if isValid(window) else []:
        session = editor.run_panels.session
        if session is not None:
            asyncio.run(session.close())
            editor.run_panels.session = None
        monkeypatch.setattr(editor.ask, "save_changes", lambda: "discard")
        monkeypatch.setattr(editor.ask, "closing", lambda *_a: CloseAnswer(save=False))
    if isValid(window):
        window.close()


@pytest.fixture
def run_tab(shell, past_run, qtbot):
    """The tab a replay of a finished run of CHAIN opened (its graph is another's)."""
    pir = shell.current()
    pir.run_panels.history.replayRequested.emit(past_run(CHAIN, "chain"))
    tab = shell.current()
    assert tab is not pir and tab.run_origin is not None and tab.run_panels.replaying
    return tab


def _shown(tab: EditorWindow) -> str:
    return dumps_workflow(tab.editor.model.doc)


def test_a_run_tab_refuses_every_edit_and_never_asks_to_be_saved(
        shell, run_tab, qtbot, monkeypatch):
    tab, before = run_tab, _shown(run_tab)
    # Tab (or a double-click on empty canvas) opens no "Add node" list, and says why
    tab.view.setFocus()
    QTest.keyClick(tab.view, Qt.Key.Key_Tab)
    assert not tab.popup.isVisible()
    assert "read-only" in tab.statusBar().currentMessage()
    tab.scene.emptyDoubleClicked.emit(QPointF(900, 900))
    assert not tab.popup.isVisible()
    # a node dragged stays put, a drag from its port connects nothing, Delete keeps it
    where = tab.editor.model.node("a").position
    drag(tab, node_center(tab, "a"), node_center(tab, "a") + QPointF(160, 120))
    assert tab.editor.model.node("a").position == where
    drag(tab, out_port(tab, "a"), node_center(tab, "c"))
    tab.scene.select(["a"])
    QTest.keyClick(tab.view, Qt.Key.Key_Delete)
    # the palette, a paste and the commands called all the same add nothing
    tab.palette_panel.activated.emit(entries()[0])
    QGuiApplication.clipboard().setText(tab.editor.copy_text(["a", "b"]))
    tab.edit.paste()
    tab.edit.add_note()
    tab.edit.undo()
    tab.arrange.auto_layout()
    assert tab.editor.add_node("planner", at=(600, 600)) and tab.editor.connect("b", "c") is None
    # the Inspector shows the node's fields, and they take no edit
    tab.scene.select(["a"])
    _f, label, _e = tab.inspector.widgets[("node", "label")]
    assert label.isReadOnly() and tab.inspector.read_only_note.isVisibleTo(tab.inspector)
    assert label.property("locked") is True  # drawn as no input: the theme greys it
    label.setText("Renamed")
    label.editingFinished.emit()
    _f, entry, _e = tab.inspector.widgets[("node", "entry")]
    assert not entry.isEnabled()
    tab.scene.select([])
    _f, description, _e = tab.inspector.widgets[("doc", "description")]
    assert description.isReadOnly() and description.toPlainText() == \
        "A hands to B; C stands apart."
    assert _shown(tab) == before
    for name in EDIT_ACTIONS:  # greyed in the menus and the toolbar; their keys do nothing
        assert not tab.actions_[name].isEnabled(), name
    assert not tab.file.is_modified() and not tab.isWindowModified()
    assert not shell.tabs.tabText(shell.tabs.indexOf(tab)).endswith("*")
    monkeypatch.setattr(tab.ask, "save_changes", lambda: pytest.fail("asked to save"))
    tab.close()  # nothing of it is unsaved: no question
    qtbot.waitUntil(lambda: not isValid(tab) or tab not in shell.editors())


def test_save_as_makes_the_runs_graph_a_workflow_to_edit(run_tab, tmp_path, monkeypatch):
    tab = run_tab
    target = tmp_path / "mine.flow.yaml"
    monkeypatch.setattr(tab.ask, "save_path", lambda *_a: str(target))
    assert tab.files.save_as() and target.exists()
    assert tab.actions_["add_node"].isEnabled()
    label = tab.inspector.widgets[("node", "label")][1]
    assert not label.isReadOnly() and label.property("locked") is False
    node = tab.editor.add_node("planner", at=(600, 600))
    assert tab.editor.model.has_node(node) and tab.file.is_modified()
    assert tab.actions_["undo"].isEnabled()


def test_the_save_question_names_the_document_as_its_tab_does(shell, monkeypatch):
    shell.current().files.new()
    untitled = shell.current()
    untitled.editor.set_meta(name="Sketch of a review")
    untitled.editor.add_node("planner", at=(0, 0))
    asked: list[str] = []

    def answer(box: QMessageBox) -> int:
        asked.append(box.text())
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "exec", answer)
    assert untitled.ask.save_changes() == "cancel"
    assert asked == ["Save changes to “Sketch of a review” before closing?"]
    pir = shell.editors()[0]
    pir.editor.add_node("planner", at=(0, 0))
    listed: list[list[str]] = []
    monkeypatch.setattr(pir.ask, "closing", lambda unsaved, live, quitting: (
        listed.append(unsaved), None)[1])
    shell.tabs.setCurrentWidget(pir)
    shell.close()  # Cancel: both stay
    assert listed == [["plan-implement-review.flow.yaml", "Sketch of a review"]]
