"""Files: save/open round trip, revert, close prompt, disk changes, and crash recovery."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from shiboken6 import isValid

from desktop.graph.io import dumps_workflow, load_workflow
from desktop.graph.resources import examples_dir
from desktop.ui import startup
from desktop.ui.recovery import RecoverySession, find_orphans, recovery_dir
from desktop.ui.window import EditorWindow

EXAMPLES = sorted(examples_dir().glob("*.flow.yaml"))


def test_draw_save_reopen_round_trip(editor_window, tmp_path, qtbot, monkeypatch):
    win = editor_window
    ed = win.editor
    a = ed.add_node("planner", at=(0, 0))
    b = ed.add_node("implementer", at=(300, 0))
    ed.connect(a, b)
    ed.connect(b, a, "report")
    win.inspector.show_selection([], [])
    ed.set_meta(name="Drawn by hand", task="Do the thing")
    target = tmp_path / "drawn.flow.yaml"
    monkeypatch.setattr(win.ask, "save_path", lambda *a: str(target))
    assert win.files.save()
    assert not win.file.is_modified()
    assert "[*]" in win.windowTitle() and not win.isWindowModified()
    saved = load_workflow(target)
    assert saved == ed.model.doc
    other = EditorWindow(target)
    qtbot.addWidget(other)
    assert dumps_workflow(other.editor.model.doc) == target.read_text()
    assert not other.file.is_modified()
    other.file.close()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_open_and_save_example_unchanged(editor_window, tmp_path, example):
    path = tmp_path / example.name
    path.write_bytes(example.read_bytes())
    assert editor_window.files.open_path(path)
    editor_window.files.save()
    assert load_workflow(path) == load_workflow(example)


def test_bad_file_reports_problems_and_keeps_document(editor_window, tmp_path):
    win = editor_window
    win.editor.add_node("planner")
    bad = tmp_path / "bad.flow.yaml"
    bad.write_text("nodes:\n  - id: a\n    colour: [red\n")  # not YAML: nothing to open
    assert not win.files.open_path(bad)
    assert "bad.flow.yaml" in win.answers["errors"][-1]
    assert win.editor.model.node_ids() == ["planner"]


WRONG_FIELDS = """\
version: 1
name: Wrong fields
task: try it
nodes:
  - {id: a, label: Planner, provider: scripted, entry: true, colour: red}
  - {id: b, label: Builder, provder: scripted}
nodeConfigs:
  a: {instrucitons: "plan it", stallThreshold: many}
edges:
  - {from: a, to: b, type: handoff}
"""


def test_wrong_fields_open_marked_refuse_to_run_and_are_fixed_by_saving(editor_window,
                                                                        tmp_path):
    win = editor_window
    path = tmp_path / "wrong.flow.yaml"
    path.write_text(WRONG_FIELDS)
    assert win.files.open_path(path)
    assert win.editor.model.node_ids() == ["a", "b"]
    listed = [(win.problems.describe(p.location), p.line) for p in win.problems.problems]
    assert listed == [("a · colour", 5), ("b · provder", 6), ("a · instrucitons", 8),
                      ("a · stallThreshold", 8)]
    assert 'it was "plan it"' in win.problems.problems[2].hint
    assert win.problems.per_node() == {"a": (3, 0), "b": (1, 0)}  # the canvas badges
    assert "4 wrong fields left out" in win.info.label.text() and win.info.isVisible()
    assert path.read_text() == WRONG_FIELDS  # nothing written by opening
    assert win.run_panels.preflight.refuse(win.editor.model.doc)  # it does not run
    model = win.editor.model  # the fix, made as the inspector makes it
    win.editor.edit_node(model.node("a"),
                         model.config("a").model_copy(update={"instructions": "plan it"}))
    assert win.files.save()
    assert win.problems.problems == []
    assert load_workflow(path).node_configs["a"].instructions == "plan it"
    assert not win.run_panels.preflight.refuse(win.editor.model.doc)


def test_modified_tracking_undo_back_to_clean_and_revert(example_window):
    win = example_window
    assert not win.file.is_modified()
    win.editor.add_node("tester")
    assert win.file.is_modified() and win.isWindowModified()
    win.actions_["undo"].trigger()
    assert not win.file.is_modified()
    win.editor.add_node("tester")
    win.actions_["revert"].trigger()
    assert "tester" not in win.editor.model.node_ids()
    assert not win.file.is_modified()


def test_a_read_only_file_is_not_replaced_by_save(example_window, monkeypatch):
    win = example_window
    path = win.file.path
    before = path.read_bytes()
    path.chmod(0o444)
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(win, "show_error", lambda title, text: shown.append((title, text)))
    win.editor.add_node("tester")
    assert not win.files.save()
    assert path.read_bytes() == before and (path.stat().st_mode & 0o777) == 0o444
    assert win.file.is_modified(), "the edit is still there to save elsewhere"
    [(title, text)] = shown
    assert title == "Cannot save" and text.startswith(f"{path}: the file is read-only")
    assert "Save As" in text and f"chmod u+w {path}" in text
    path.chmod(0o644)
    assert win.files.save()
    assert "tester" in [n.id for n in load_workflow(path).nodes]


def test_close_prompt_cancel_keeps_window_save_writes(example_window, monkeypatch):
    win = example_window
    win.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)  # qtbot deletes it later
    win.editor.add_node("tester")
    win.answers["save_changes"] = "cancel"
    assert not win.close()
    assert isValid(win) and win.isVisible()
    win.answers["save_changes"] = "save"
    path = win.file.path
    assert win.close()
    assert "tester" in [n.id for n in load_workflow(path).nodes]


def test_autosave_writes_recovery_copy_and_save_removes_it(example_window, qtbot):
    win = example_window
    win.editor.add_node("tester")
    copy = recovery_dir() / f"{win.file.recovery.id}.flow.yaml"
    qtbot.waitUntil(copy.exists, timeout=10000)  # the timer fires on its own
    assert "tester" in [n.id for n in load_workflow(copy).nodes]
    assert find_orphans() == []  # this window is alive: its copy is not an orphan
    win.files.save()
    assert not copy.exists()


def test_file_changed_on_disk_offers_reload(example_window, qtbot):
    win = example_window
    path = win.file.path
    doc = load_workflow(path)
    doc.name = "Changed elsewhere"
    path.write_text(dumps_workflow(doc))
    qtbot.waitUntil(win.info.isVisible, timeout=10000)
    assert "changed by another program" in win.info.label.text()
    win.info.buttons[0].click()  # Reload
    assert win.editor.model.doc.name == "Changed elsewhere"
    assert not win.file.is_modified()


def test_own_save_is_not_reported_as_outside_change(example_window, qtbot):
    win = example_window
    reports: list[str] = []
    win.file.changedOnDisk.connect(reports.append)
    win.editor.set_meta(name="Mine")
    win.files.save()
    assert not win.file.check_disk()
    # the watcher delivers in order: once it tells of a touch made after the save, it has
    # told of anything the save itself caused
    with qtbot.waitSignal(win.file._watcher.fileChanged, timeout=10000):
        os.utime(win.file.path)
    assert reports == [] and not win.info.isVisible()
    # and the watch held: a change made elsewhere is still reported, once
    doc = load_workflow(win.file.path)
    doc.name = "Theirs"
    win.file.path.write_text(dumps_workflow(doc))
    qtbot.waitUntil(win.info.isVisible, timeout=10000)
    assert reports == [str(win.file.path)]


CRASHING_EDITOR = textwrap.dedent("""
    import os, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from desktop.ui.window import EditorWindow
    win = EditorWindow(sys.argv[1])
    win.editor.add_node("tester", at=(400.0, 300.0))
    win.editor.set_meta(name="Unsaved work")
    app.exec()  # the autosave timer writes the recovery copy; then we are killed
""")


def test_recovery_after_kill_9(tmp_path, qtbot, monkeypatch):
    path = tmp_path / "flow.flow.yaml"
    path.write_bytes((examples_dir() / "single-agent.flow.yaml").read_bytes())
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.Popen([sys.executable, "-c", CRASHING_EDITOR, str(path)], env=env)
    try:
        deadline = time.monotonic() + 60
        while not list(recovery_dir().glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert list(recovery_dir().glob("*.json")), "no recovery copy was written"
        assert find_orphans() == []  # still running: its lock is held
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    orphans = find_orphans()
    assert len(orphans) == 1 and orphans[0].path == str(path)
    monkeypatch.setattr(startup, "ask_restore", lambda parent, found: "restore")
    win = startup.open_editor()
    qtbot.addWidget(win.host)  # the app's window: a last tab closed alone leaves a new one
    monkeypatch.setattr(win.ask, "save_changes", lambda: "discard")
    doc = win.editor.model.doc
    assert doc.name == "Unsaved work"
    assert "tester" in [n.id for n in doc.nodes]
    assert win.file.path == path and win.file.is_modified()
    assert find_orphans() == []  # restored: the old copy is gone, the new one is live
    assert (recovery_dir() / f"{win.file.recovery.id}.flow.yaml").exists()
    win.files.save()
    assert load_workflow(path).name == "Unsaved work"


def test_discarding_recovery_removes_copy(tmp_path, qtbot, monkeypatch):
    session = RecoverySession()
    session.write(load_workflow(examples_dir() / "single-agent.flow.yaml"), None)
    session._lock.release()  # as if the process had died
    assert len(find_orphans()) == 1
    monkeypatch.setattr(startup, "ask_restore", lambda parent, found: "discard")
    win = startup.open_editor()
    qtbot.addWidget(win.host)  # the app's window: a last tab closed alone leaves a new one
    assert find_orphans() == []
    assert not win.editor.model.doc.nodes


REPEATED_ID = """\
version: 1
name: Repeated id
nodes:
  - {id: a, label: A, entry: true}
  - {id: a, label: dup, provder: scripted}
edges:
  - {id: e, from: a, to: b}
  - {id: e, from: a, to: b}
"""


def test_a_repeated_id_opens_renamed_listed_and_drawn_apart(editor_window, tmp_path):
    win = editor_window
    path = tmp_path / "repeated.flow.yaml"
    path.write_text(REPEATED_ID)
    assert win.files.open_path(path)
    model = win.editor.model
    assert model.node_ids() == ["a", "a-2"]  # both cards, each its own
    cards = win.scene.nodes
    assert (cards["a"].raw[0], cards["a-2"].raw[0]) == ("A", "dup")
    assert cards["a"].sceneBoundingRect().intersected(cards["a-2"].sceneBoundingRect()).isEmpty()
    listed = [(p.location, p.line, p.message) for p in win.problems.left_out]
    assert listed == [("nodes[1].id", 5, "duplicate node id 'a' (also nodes[0])"),
                      ("nodes[1].provder", 5, listed[1][2]),
                      ("edges[1].id", 8, "duplicate edge id 'e' (also edges[0])")]
    assert "renamed 'a-2'" in win.problems.left_out[0].hint
    assert win.counts_label.text() == "2 nodes · 2 edges"
    assert "1 wrong field left out and 2 repeated ids renamed" in win.info.label.text()
    assert win.problems.per_node()["a-2"][0] >= 2  # its badge counts the rename
    assert win.run_panels.preflight.refuse(model.doc)  # not run until it is saved
    assert path.read_text() == REPEATED_ID
    assert win.files.save()
    assert [n.id for n in load_workflow(path).nodes] == ["a", "a-2"]
