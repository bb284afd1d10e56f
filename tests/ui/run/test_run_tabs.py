"""A run of another workflow opens with its own graph in a tab of its own; a run of the
window's own graph is shown over it."""

from __future__ import annotations

import asyncio

import pytest
from shiboken6 import isValid

from desktop.graph.resources import examples_dir
from desktop.ui.tabs import TabbedWindow
from desktop.ui.window import OPEN_WINDOWS, EditorWindow

PIR = examples_dir() / "plan-implement-review.flow.yaml"
SINGLE = examples_dir() / "single-agent.flow.yaml"


@pytest.fixture
def tabbed_window(qtbot, monkeypatch, tmp_path):
    shell = TabbedWindow()
    qtbot.addWidget(shell)
    path = tmp_path / PIR.name
    path.write_bytes(PIR.read_bytes())
    first = EditorWindow()
    assert first.files.open_path(path)
    shell.add(first)
    shell.resize(1280, 800)
    shell.show()
    qtbot.waitExposed(shell)
    yield shell
    for editor in shell.editors() if isValid(shell) else []:
        session = editor.run_panels.session
        if session is not None:
            asyncio.run(session.close())
            editor.run_panels.session = None
        monkeypatch.setattr(editor.ask, "save_changes", lambda: "discard")


def test_a_run_of_another_workflow_opens_with_its_own_graph_in_a_tab(tabbed_window, past_run):
    shell = tabbed_window
    pir = shell.current()
    run_dir = past_run(SINGLE, "single")
    pir.run_panels.history.openRequested.emit(run_dir)
    assert shell.tabs.count() == 2
    run_tab = shell.current()
    assert run_tab is not pir and run_tab.run_origin == run_dir
    single = {n.id for n in run_tab.editor.model.doc.nodes}
    assert set(run_tab.scene.nodes) == single  # the run's graph, drawn from its events
    assert run_tab.run_panels.session.run_dir == run_dir
    assert run_tab.run_panels.overlay.runtime_nodes == {}  # no ghosts over another graph
    assert "Single agent" in shell.windowTitle() and "run " in shell.windowTitle()
    assert run_tab.counts_label.text() == "1 node · 0 edges"
    assert shell.tabs.tabText(1).startswith("▶ Single agent")
    # the workflow's own tab is untouched
    assert pir.run_panels.session is None and pir.run_panels.overlay.runtime_nodes == {}
    assert pir.editor.model.doc.name == "Plan, implement, review"
    assert pir.counts_label.text() == "3 nodes · 4 edges"


def test_a_run_of_the_windows_own_graph_is_shown_over_it(tabbed_window, past_run):
    shell = tabbed_window
    pir = shell.current()
    run_dir = past_run(PIR, "pir")
    pir.run_panels.history.replayRequested.emit(run_dir)
    assert shell.tabs.count() == 1 and shell.current() is pir
    panels = pir.run_panels
    assert panels.replaying and panels.session.run_dir == run_dir
    assert panels.overlay.runtime_nodes == {}
    assert {n.get("key") for n in panels.session.state["nodes"].values()} == set(pir.scene.nodes)


def test_without_tabs_the_run_gets_a_window_of_its_own(editor_window, past_run, qtbot):
    editor_window.files.open_path(PIR)
    count = len(OPEN_WINDOWS)
    editor_window.run_panels.history.openRequested.emit(past_run(SINGLE, "single"))
    assert len(OPEN_WINDOWS) == count + 1
    other = OPEN_WINDOWS[-1]
    qtbot.addWidget(other)
    assert other.run_origin is not None and len(other.scene.nodes) == 1
    assert editor_window.run_panels.session is None
    asyncio.run(other.run_panels.session.close())
    other.run_panels.session = None


def test_a_run_opened_in_a_tab_shows_its_own_graphs_problems_at_once(tabbed_window,
                                                                     past_run):
    """The new tab validated its blank document when it was made; the run's graph
    replaces it, and no error of the blank one ("no nodes") is shown over the run's."""
    shell = tabbed_window
    shell.current().run_panels.history.openRequested.emit(past_run(SINGLE, "single"))
    run_tab = shell.current()
    assert run_tab.editor.model.doc.nodes  # the run's graph is in...
    # ...and what the window says about problems is about it, with no wait for a timer
    assert all("no nodes" not in p.message for p in run_tab.problems.problems)
    assert run_tab.problems_label.text() == "✓ No problems"
    assert run_tab.docks["problems"].windowTitle() == "Problems"
    assert run_tab.inspector.problems == []
    assert not run_tab.problems._timer.isActive()  # nothing stale left to correct


def test_a_run_tab_whose_run_is_deleted_says_so_in_its_name(qloop, tabbed_window,
                                                            past_run):
    """Deleting the run a tab of its own shows (from Run history, or elsewhere) leaves the
    tab with the run's graph and the banner, and its name and the window's title say the
    run is gone instead of naming it as if it were there."""
    from desktop.ui.run.history_delete import forget_deleted

    shell = tabbed_window
    run_dir = past_run(SINGLE, "single")
    shell.current().run_panels.history.openRequested.emit(run_dir)
    run_tab = shell.current()
    session = run_tab.run_panels.session
    forget_deleted([run_dir.name], session.data_dir)
    assert run_tab.run_panels.session is None
    qloop.run_until_complete(asyncio.gather(*run_tab.run_panels._closing))
    assert run_tab.run_panels.service.isVisible()
    assert f"Run {run_dir.name[:8]} was deleted" in run_tab.run_panels.service.title.text()
    assert shell.tabs.tabText(1) == f"▶ Single agent · {run_dir.name[:8]} (deleted)"
    assert f"run {run_dir.name[:8]} (deleted)" in shell.windowTitle()
    # the workflow's own tab, which did not show the run, is left as it was
    assert shell.tabs.tabText(0) == "Plan, implement, review"

    # a run shown there next makes it that run's tab: "deleted" goes with the old one
    other = past_run(PIR, "pir")
    run_tab.run_panels.open_run(other)
    assert shell.tabs.tabText(1) == f"▶ Single agent · {other.name[:8]}"
    assert "(deleted)" not in shell.windowTitle()


def test_a_run_whose_workflow_another_tab_shows_goes_to_that_tab(tabbed_window, past_run):
    """Opened from Run history while another workflow's tab is in front, a run goes to the
    tab that already shows its workflow (brought to the front), not to a new tab."""
    shell = tabbed_window
    pir = shell.current()
    single_tab = EditorWindow()
    assert single_tab.files.open_path(SINGLE)
    shell.add(single_tab, focus=False)
    assert shell.current() is pir and shell.tabs.count() == 2
    run_dir = past_run(SINGLE, "single")
    pir.run_panels.history.openRequested.emit(run_dir)
    assert shell.tabs.count() == 2
    assert shell.current() is single_tab
    assert single_tab.run_panels.session.run_dir == run_dir
    assert pir.run_panels.session is None


def test_a_run_tab_is_named_after_the_run_it_shows_once_run_again(
        qloop, tabbed_window, past_run, service, until):
    """Run pressed in a run's tab starts a new run there: the tab's text and tooltip, the
    window's title and the closing question all name that run, not the first one."""
    from desktop.ui.closing import live_run_of

    shell = tabbed_window
    first_run = past_run(SINGLE, "single")
    shell.current().run_panels.history.openRequested.emit(first_run)
    run_tab = shell.current()
    assert first_run.name[:8] in shell.tabs.tabText(1)
    run_tab.run_panels.data_dir = service.data_dir
    session = qloop.run_until_complete(run_tab.run_panels.run())
    assert session is not None and session.run_id != first_run.name
    try:
        new_id = session.run_id[:8]
        assert shell.tabs.tabText(1) == f"▶ Single agent · {new_id}"
        assert f"run {new_id}" in shell.tabs.tabToolTip(1)
        assert f"run {new_id}" in shell.windowTitle() and first_run.name[:8] not in \
            shell.windowTitle()
        assert live_run_of(run_tab).run_id[:8] == new_id  # what the close question says
        qloop.run_until_complete(until(lambda: not session.running, 60))
    finally:
        qloop.run_until_complete(session.close())
        run_tab.run_panels.session = None


def test_a_run_tab_shows_the_workflows_description_in_the_inspector(tabbed_window, past_run):
    shell = tabbed_window
    shell.current().run_panels.history.openRequested.emit(past_run(SINGLE, "single"))
    run_tab = shell.current()
    run_tab.scene.select([])
    description = run_tab.inspector.widgets[("doc", "description")][1]
    assert description.toPlainText() == \
        "One implementer does the whole task; the smallest workflow that runs."
