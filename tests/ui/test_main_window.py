"""The main (editor) window opens workflows, shows nodes, edges and problems, and survives
bad files."""

from pathlib import Path

import pytest

from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.ui import app
from desktop.ui.window import EditorWindow

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


def test_shows_nodes_and_edges(editor_window: EditorWindow, tmp_path: Path) -> None:
    path = tmp_path / "tiny.flow.yaml"
    path.write_text(FLOW)
    assert editor_window.files.open_path(path)
    assert "Tiny flow" in editor_window.windowTitle()
    scene = editor_window.scene
    assert [scene.nodes[i].label for i in ("planner", "coder")] == ["Planner", "Coder"]
    assert [scene.nodes[i].role for i in ("planner", "coder")] == ["planner", "implementer"]
    ends = sorted((e.from_, e.to, str(e.type)) for e in editor_window.editor.model.doc.edges)
    assert ends == [("coder", "planner", "report"), ("planner", "coder", "handoff")]
    assert len(scene.edges) == 2
    assert all(n.position is not None for n in editor_window.editor.model.doc.nodes)


def test_validation_problems_listed(editor_window: EditorWindow, tmp_path: Path) -> None:
    path = tmp_path / "dangling.flow.yaml"
    path.write_text(FLOW + "  - from: coder\n    to: ghost\n")
    assert editor_window.files.open_path(path)
    editor_window.problems.refresh()
    assert any("ghost" in p.message for p in editor_window.problems.problems)
    assert "error" in editor_window.problems_label.text()
    assert not editor_window.scene.edges[editor_window.editor.model.edge_keys()[-1]].isVisible()


@pytest.mark.parametrize(
    # (a file whose fields are only wrong opens, listed in Problems: tests/ui/test_files.py)
    "content", ["nodes: [", "nodes:\n  - label: no id\n", "\xff\xfe", "- 1\n- 2\n"]
)
def test_bad_file_shows_message_not_crash(editor_window: EditorWindow, tmp_path: Path,
                                          content: str) -> None:
    good = tmp_path / "good.flow.yaml"
    good.write_text(FLOW)
    editor_window.files.open_path(good)
    bad = tmp_path / "bad.flow.yaml"
    bad.write_bytes(content.encode("latin-1"))
    assert not editor_window.files.open_path(bad)
    assert "bad.flow.yaml" in editor_window.answers["errors"][-1]
    assert editor_window.editor.model.node_ids() == ["planner", "coder"]  # previous kept
    assert editor_window.file.path == good.resolve()


def test_missing_file(editor_window: EditorWindow, tmp_path: Path) -> None:
    assert not editor_window.files.open_path(tmp_path / "nope.flow.yaml")
    assert "not found" in editor_window.answers["errors"][-1]


def test_open_action_uses_chosen_file(editor_window: EditorWindow, tmp_path: Path,
                                      monkeypatch) -> None:
    path = tmp_path / "tiny.flow.yaml"
    path.write_text(FLOW)
    monkeypatch.setattr(editor_window.ask, "open_path", lambda *a: str(path))
    editor_window.actions_["open"].trigger()
    assert editor_window.file.path == path.resolve()


@pytest.mark.skipif(not EXAMPLES, reason="no example workflows yet")
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_opens_each_example(editor_window: EditorWindow, example: Path) -> None:
    assert editor_window.files.open_path(example), editor_window.answers.get("errors")
    doc = load_workflow(example)
    assert editor_window.editor.model.node_ids() == [n.id for n in doc.nodes]
    assert len(editor_window.scene.edges) == len(doc.edges)


def test_run_app_opens_editor_window(qtbot, tmp_path: Path) -> None:
    """run_app shows its window, gives it the document's tab on the qasync loop (Qt and
    asyncio on one loop), and returns when the last window closes."""
    import asyncio

    from PySide6.QtCore import QTimer

    from desktop.ui.tabs import TabbedWindow

    path = tmp_path / "tiny.flow.yaml"
    path.write_text(FLOW)
    seen = {}

    def look_then_close() -> None:
        from desktop.ui.window import OPEN_WINDOWS

        if not OPEN_WINDOWS:  # the document's tab is made once the window has painted
            return
        poll.stop()
        seen["windows"] = list(OPEN_WINDOWS)
        seen["loop_running"] = asyncio.get_event_loop().is_running()
        seen["path"] = OPEN_WINDOWS[-1].file.path
        seen["host"] = OPEN_WINDOWS[-1].host
        # the app's window, not its tabs: a last tab closed alone leaves a new one open
        for window in {id(w.host or w): w.host or w for w in OPEN_WINDOWS}.values():
            window.close()

    poll = QTimer()
    poll.timeout.connect(look_then_close)
    poll.start(20)
    try:
        assert app.run_app(str(path)) == 0
    finally:
        poll.stop()
        asyncio.set_event_loop(None)
    assert seen["loop_running"], "the asyncio loop must run while the window is open"
    assert isinstance(seen["windows"][-1], EditorWindow)
    assert isinstance(seen["host"], TabbedWindow), "the document is a tab of start-up's window"
    assert seen["path"] == path.resolve()


def test_app_ends_when_its_window_closed_before_the_loop_ran(qapp) -> None:
    """A window closed before the loop runs (start-up's, closed while it is being filled)
    leaves none to wait for: the app ends, it does not wait for a close that came."""
    import asyncio

    from desktop.ui.startup import fill_first_window, show_first_window

    host = show_first_window(None)
    host.close()
    assert fill_first_window(host, None) is None
    with asyncio.Runner() as runner:
        runner.run(asyncio.wait_for(app.until_every_window_closed(qapp), 30))


ONE_OF_EACH = """\
name: One of each
nodes:
  - {id: solo, label: Solo, provider: scripted, entry: true}
edges:
  - {from: solo, to: gone, type: handoff}
"""


def test_status_bar_counts_read_in_the_singular(editor_window: EditorWindow,
                                               tmp_path: Path) -> None:
    path = tmp_path / "one.flow.yaml"
    path.write_text(ONE_OF_EACH)
    assert editor_window.files.open_path(path)
    editor_window.problems.refresh()
    assert editor_window.counts_label.text() == "1 node · 1 edge"
    shown = editor_window.problems_label.text()
    theme = editor_window.theme
    # each dot in its kind's colour, not the text's
    assert f"<span style='color:{theme.error}'>●</span> 1 error " in shown + " "
    assert f"<span style='color:{theme.warning}'>●</span>" in shown
    assert "1 errors" not in shown


def test_the_view_menu_checks_the_theme_in_use(editor_window: EditorWindow) -> None:
    items = {c: editor_window.actions_[f"theme_{c}"] for c in ("system", "light", "dark")}
    for choice in ("dark", "light", "system", "dark"):
        editor_window.set_theme_choice(choice)
        assert {c for c, item in items.items() if item.isChecked()} == {choice}
    editor_window.actions_["theme_light"].trigger()
    assert [c for c, item in items.items() if item.isChecked()] == ["light"]
    assert editor_window.theme.name == "light"


def test_an_error_making_the_first_document_tab_ends_run_app_with_it(qtbot, monkeypatch,
                                                                     tmp_path: Path) -> None:
    """A start-up that fails after the window is shown fails as one before it would: the
    error comes out of run_app (a traceback and an exit code), the window does not stay
    on the screen saying "Opening…" with nothing behind it."""
    import asyncio

    from desktop.ui.tabs import TAB_WINDOWS

    def broken(host, path):
        raise RuntimeError("the editor could not be made")

    monkeypatch.setattr(app, "fill_first_window", broken)
    try:
        with pytest.raises(RuntimeError, match="could not be made"):
            app.run_app(None)
    finally:
        asyncio.set_event_loop(None)
        for window in list(TAB_WINDOWS):
            window.close()
