"""The main window opens workflows, lists nodes and edges, and survives bad files."""

from pathlib import Path

import pytest

from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.ui.main_window import MainWindow

EXAMPLES = sorted(examples_dir().glob("*.flow.yaml"))

FLOW = """\
name: Tiny flow
description: two agents
nodes:
  - id: planner
    label: Planner
    roleTemplate: planner
    provider: scripted
  - id: coder
    label: Coder
    roleTemplate: implementer
    provider: scripted
edges:
  - from: planner
    to: coder
    type: handoff
  - from: coder
    to: planner
    type: report
"""


def texts(view, column: int = 0) -> list[str]:
    return [view.topLevelItem(i).text(column) for i in range(view.topLevelItemCount())]


@pytest.fixture
def window(qtbot) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    return win


def test_lists_nodes_and_edges(window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "tiny.flow.yaml"
    path.write_text(FLOW)
    assert window.load_file(path)
    assert "Tiny flow" in window.windowTitle()
    assert texts(window.nodes_view) == ["Planner", "Coder"]
    assert texts(window.nodes_view, 2) == ["planner", "implementer"]
    assert texts(window.nodes_view, 3) == ["scripted", "scripted"]
    assert texts(window.edges_view) == ["planner -> coder", "coder -> planner"]
    assert texts(window.edges_view, 1) == ["handoff", "report"]


def test_validation_problems_in_status_bar(window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "dangling.flow.yaml"
    path.write_text(FLOW + "  - from: coder\n    to: ghost\n")
    window.load_file(path)
    assert window.problems, "an edge to a missing node is a problem"
    assert "error" in window.statusBar().currentMessage()


@pytest.mark.parametrize(
    "content", ["nodes: [", "nodes:\n  - id: a\n    colour: red\n", "\xff\xfe", "- 1\n- 2\n"]
)
def test_bad_file_shows_message_not_crash(window: MainWindow, tmp_path: Path,
                                          content: str) -> None:
    good = tmp_path / "good.flow.yaml"
    good.write_text(FLOW)
    window.load_file(good)
    bad = tmp_path / "bad.flow.yaml"
    bad.write_bytes(content.encode("latin-1"))
    assert not window.load_file(bad)
    assert window.error_box is not None and window.error_box.isVisible()
    assert "bad.flow.yaml" in window.error_box.text()
    assert texts(window.nodes_view) == ["Planner", "Coder"]  # previous workflow kept
    window.error_box.close()


def test_missing_file(window: MainWindow, tmp_path: Path) -> None:
    assert not window.load_file(tmp_path / "nope.flow.yaml")
    assert "not found" in window.error_box.informativeText() + window.error_box.text()


def test_open_action_uses_chosen_file(window: MainWindow, tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "tiny.flow.yaml"
    path.write_text(FLOW)
    from desktop.ui import main_window

    monkeypatch.setattr(main_window.QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))
    window.open_action.trigger()
    assert window.path == path


@pytest.mark.skipif(not EXAMPLES, reason="no example workflows yet")
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_opens_each_example(window: MainWindow, example: Path) -> None:
    assert window.load_file(example), window.error_box and window.error_box.text()
    doc = load_workflow(example)
    assert texts(window.nodes_view, 1) == [n.id for n in doc.nodes]
    assert window.edges_view.topLevelItemCount() == len(doc.edges)
