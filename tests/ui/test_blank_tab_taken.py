"""A window whose only tab is a pristine untitled workflow (File > New Window, or the app
started with no file) gives that tab to what is opened into it, instead of keeping it as a
useless extra tab; a tab with work in it is never replaced."""

from __future__ import annotations

from pathlib import Path

from desktop.graph.resources import examples_dir
from desktop.ui.run.evaluations import compare_evaluation
from desktop.ui.tabs import tabbed
from desktop.ui.window import EditorWindow

SINGLE = examples_dir() / "single-agent.flow.yaml"
EVAL = examples_dir() / "eval"


def _new_window(qtbot):
    """A new tabbed window on an untitled workflow, as File > New Window makes it."""
    host = tabbed(EditorWindow())
    qtbot.addWidget(host)  # the window, not its tab: closing a last tab leaves a new one
    return host


def _copy(tmp_path: Path) -> Path:
    path = tmp_path / SINGLE.name
    path.write_bytes(SINGLE.read_bytes())
    return path


def test_a_file_opened_into_a_new_window_takes_its_untitled_tab(qtbot, tmp_path) -> None:
    host = _new_window(qtbot)
    path = _copy(tmp_path)
    opened = host.open_tab(path)
    assert opened is not None and host.tabs.count() == 1
    assert host.current() is opened and opened.file.path == path.resolve()


def test_an_untitled_tab_with_work_in_it_is_kept(qtbot, tmp_path) -> None:
    host = _new_window(qtbot)
    first = host.current()
    first.editor.add_node("planner", at=(0, 0))
    opened = host.open_tab(_copy(tmp_path))
    assert host.tabs.count() == 2 and opened is not first
    assert [n.role_template for n in first.editor.model.doc.nodes] == ["planner"]
    first.editor.undo_stack.setClean()  # closes without asking at the end


def test_an_evaluation_compared_from_a_new_window_takes_its_untitled_tab(qtbot) -> None:
    host = _new_window(qtbot)
    window = host.current()
    assert compare_evaluation(window, "Utilities", EVAL / "baseline.flow.yaml",
                              EVAL / "new.flow.yaml")
    assert host.tabs.count() == 1 and host.current() is window
    assert window.editor.model.doc.nodes and window.file.path is None
    window.compare.stop()
    window.editor.undo_stack.setClean()
