"""Workflows open as tabs of one window; each tab keeps its own file, unsaved state,
recovery copy and menus; a window per file stays possible."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from shiboken6 import isValid

from desktop.graph.resources import examples_dir
from desktop.ui import recovery, startup
from desktop.ui.recovery import recovery_dir
from desktop.ui.tabs import TAB_WINDOWS, TabbedWindow, distinct_titles
from desktop.ui.window import EditorWindow

PIR = examples_dir() / "plan-implement-review.flow.yaml"
SINGLE = examples_dir() / "single-agent.flow.yaml"


def _copy(src: Path, folder: Path) -> Path:
    path = folder / src.name
    path.write_bytes(src.read_bytes())
    return path


@pytest.fixture
def shell(qtbot, monkeypatch, tmp_path):
    monkeypatch.setattr(recovery, "find_orphans", lambda: [])
    first = startup.open_editor(str(_copy(PIR, tmp_path)))
    window = first.host
    assert isinstance(window, TabbedWindow)
    answers = {"save": "discard"}
    window.answers = answers

    def patch(editor):
        from desktop.ui.close_dialog import CloseAnswer

        monkeypatch.setattr(editor.ask, "save_changes", lambda: answers["save"])
        monkeypatch.setattr(editor.ask, "closing", lambda *_a: None if answers["save"] ==
                            "cancel" else CloseAnswer(save=answers["save"] == "save"))
        monkeypatch.setattr(editor, "show_error", lambda *a: None)

    window.patch = patch
    window.others = []  # windows a test opens besides (closed at the end)
    patch(first)
    yield window
    answers["save"] = "discard"
    for other in [window, *window.others] if isValid(window) else []:
        if isValid(other):
            for editor in other.editors():
                patch(editor)
            other.close()


def test_open_adds_a_tab_and_each_tab_keeps_its_own_state(shell, tmp_path, monkeypatch):
    first = shell.current()
    second_path = _copy(SINGLE, tmp_path)
    monkeypatch.setattr(first.ask, "open_path", lambda *a: str(second_path))
    first.files.open()
    assert shell.tabs.count() == 2 and len(TAB_WINDOWS) >= 1
    second = shell.current()
    shell.patch(second)
    assert second is not first and second.file.path == second_path.resolve()
    assert second.editor.undo_stack is not first.editor.undo_stack
    second.editor.add_node("reviewer", at=(400, 300))
    assert shell.tabs.tabText(1).endswith("*") and not shell.tabs.tabText(0).endswith("*")
    assert shell.isWindowModified()
    assert first.file.recovery.id != second.file.recovery.id
    second.file.autosave_now()
    assert (recovery_dir() / f"{second.file.recovery.id}.flow.yaml").exists()
    assert not (recovery_dir() / f"{first.file.recovery.id}.flow.yaml").exists()
    shell.tabs.setCurrentIndex(0)
    assert not shell.isWindowModified() and "Plan, implement, review" in shell.windowTitle()
    # the window's menus are the current tab's: their shortcuts act on that tab only
    assert [m for m in shell.menuBar().actions()] == [
        m.menuAction() for m in first.menus.values()]
    monkeypatch.setattr(first.ask, "open_path", lambda *a: str(second_path))
    first.files.open()  # a file already open is shown, not opened twice
    assert shell.tabs.count() == 2 and shell.current() is second


def test_closing_tabs_asks_for_unsaved_work_and_the_last_tab_leaves_an_untitled_one(
        shell, qtbot):
    first = shell.current()
    first.files.new()
    second = shell.current()
    shell.patch(second)
    assert second is not first and shell.tabs.count() == 2
    second.editor.add_node("planner", at=(0, 0))
    shell.answers["save"] = "cancel"
    shell.tabs.tabCloseRequested.emit(1)
    assert shell.tabs.count() == 2  # kept: the user cancelled
    shell.answers["save"] = "discard"
    shell.tabs.tabCloseRequested.emit(1)
    qtbot.waitUntil(lambda: shell.tabs.count() == 1)
    first.actions_["close"].trigger()
    # the app stays open, as it starts with no file: on a new untitled workflow
    qtbot.waitUntil(lambda: not isValid(first) or first not in shell.editors())
    assert isValid(shell) and shell.isVisible() and shell.tabs.count() == 1
    fresh = shell.current()
    assert fresh.file.path is None and not fresh.editor.model.doc.nodes
    assert [m for m in shell.menuBar().actions()] == [
        m.menuAction() for m in fresh.menus.values()]  # its menus, and so its shortcuts
    shell.patch(fresh)
    shell.close()  # the window itself still closes with its last tab
    qtbot.waitUntil(lambda: not isValid(shell) or not shell.isVisible())


def _seven_tabs(shell, tmp_path: Path, unsaved: tuple[int, ...]) -> list[EditorWindow]:
    """Six more tabs beside the first; the tabs at ``unsaved`` get an unsaved change."""
    for i in range(6):
        path = tmp_path / f"copy{i}" / SINGLE.name
        path.parent.mkdir()
        path.write_bytes(SINGLE.read_bytes())
        shell.patch(shell.open_tab(path))
    editors = shell.editors()
    for i in unsaved:
        editors[i].editor.add_node("reviewer", at=(400, 300 + 10 * i))
    return editors


def test_quit_asks_once_before_closing_anything_and_cancel_closes_nothing(
        shell, tmp_path, monkeypatch, qtbot):
    editors = _seven_tabs(shell, tmp_path, unsaved=(4, 6))
    first = editors[0]
    asked: list[tuple[list[str], list[str], bool]] = []

    def cancel(unsaved, live, quitting):
        asked.append((unsaved, live, quitting))
        assert shell.tabs.count() == 7  # asked before any tab closed
        return None

    monkeypatch.setattr(first.ask, "closing", cancel)
    for editor in editors:  # no tab may ask on its own: the one question covers them all
        monkeypatch.setattr(editor.ask, "save_changes", lambda: pytest.fail("asked twice"))
    first.files.quit()
    assert len(asked) == 1 and len(asked[0][0]) == 2 and asked[0][2] is True
    assert shell.tabs.count() == 7 and shell.isVisible()  # Cancel changed nothing
    assert all(isValid(e) and e.file.is_modified() == (i in (4, 6))
               for i, e in enumerate(editors))


def test_closing_the_window_asks_once_for_every_tab(shell, tmp_path, monkeypatch, qtbot):
    from desktop.ui.close_dialog import CloseAnswer

    editors = _seven_tabs(shell, tmp_path, unsaved=(2, 5))
    asked: list[list[str]] = []
    for editor in editors:
        monkeypatch.setattr(editor.ask, "save_changes", lambda: pytest.fail("asked twice"))
    current = shell.current()
    monkeypatch.setattr(current.ask, "closing", lambda unsaved, live, quitting: (
        asked.append(unsaved), None)[1])
    shell.close()
    assert len(asked) == 1 and shell.tabs.count() == 7  # Cancel: every tab stays
    monkeypatch.setattr(current.ask, "closing", lambda unsaved, live, quitting: (
        asked.append(unsaved), CloseAnswer(save=False))[1])
    shell.close()
    qtbot.waitUntil(lambda: not isValid(shell) or not shell.isVisible(), timeout=5000)
    assert len(asked) == 2


def test_open_in_new_window_gives_the_file_a_window_of_its_own(shell, tmp_path, monkeypatch,
                                                              qtbot):
    first = shell.current()
    path = _copy(SINGLE, tmp_path)
    monkeypatch.setattr(first.ask, "open_path", lambda *a: str(path))
    before = list(TAB_WINDOWS)
    first.files.open_new_window()
    new = [w for w in TAB_WINDOWS if w not in before]
    assert len(new) == 1 and new[0] is not shell
    shell.others.append(new[0])
    assert new[0].current().file.path == path.resolve()
    assert shell.tabs.count() == 1


def test_a_standalone_window_still_opens_files_in_windows(editor_window, tmp_path):
    assert editor_window.host is None
    assert isinstance(editor_window, EditorWindow)
    assert editor_window.actions_["close"].text() == "&Close"


def _shown_anywhere(action) -> bool:
    """Whether Qt would let ``action``'s shortcut fire: one of the widgets it is on (a
    menu counts through the menu bars it is on) is visible."""
    from PySide6.QtWidgets import QMenu, QWidget

    for obj in action.associatedObjects():
        if isinstance(obj, QMenu):
            if any(_shown_anywhere_menu(w) for w in obj.menuAction().associatedObjects()):
                return True
        elif isinstance(obj, QWidget) and obj.isVisible():
            return True
    return False


def _shown_anywhere_menu(obj) -> bool:
    from PySide6.QtWidgets import QMenu, QWidget

    if isinstance(obj, QMenu):
        return any(_shown_anywhere_menu(w) for w in obj.menuAction().associatedObjects())
    return isinstance(obj, QWidget) and obj.isVisible()


def test_only_the_front_tabs_shortcuts_are_live(shell, qtbot):
    from PySide6.QtGui import QAction

    first = shell.current()
    first.files.new()
    second = shell.current()
    shell.patch(second)
    live: dict[str, list[str]] = {}
    for tab in (first, second):
        for action in tab.findChildren(QAction):
            if not isValid(action) or action.shortcut().isEmpty() \
                    or not _shown_anywhere(action):
                continue
            assert tab is second, f"{action.text()} of a tab behind still answers its keys"
            for seq in action.shortcuts():
                live.setdefault(seq.toString(), []).append(action.objectName())
    assert live["Ctrl+S"] == ["save"] and live["Ctrl+Shift+A"] == ["approvals"]
    assert all(len(names) == 1 for names in live.values()), live


def test_ctrl_tab_steps_through_the_tabs(shell):
    first = shell.current()
    first.files.new()
    second = shell.current()
    shell.patch(second)
    step = next(a for a in shell.actions() if a.objectName() == "next_tab")
    assert step.shortcut().toString() == "Ctrl+Tab"
    step.trigger()
    assert shell.current() is first
    step.trigger()
    assert shell.current() is second


def test_two_files_of_one_workflow_name_get_tabs_that_read_differently(shell, tmp_path):
    other = tmp_path / "copy"
    other.mkdir()
    second = shell.open_tab(_copy(PIR, other))
    shell.patch(second)
    first = shell.editors()[0]
    texts = [shell.tabs.tabText(shell.tabs.indexOf(e)) for e in (first, second)]
    assert first.tab_title() == second.tab_title()
    assert texts[0] != texts[1], texts
    assert texts[0].startswith(first.tab_title()) and texts[1].endswith("copy/" + PIR.name)
    second.close()
    assert shell.tabs.tabText(shell.tabs.indexOf(first)) == first.tab_title()


@given(st.lists(st.tuples(st.sampled_from(["Review", "Review *", "Build"]),
                          st.lists(st.sampled_from(["a", "b", "c.flow.yaml"]), min_size=1,
                                   max_size=4).map(lambda p: Path("/", *p))),
                max_size=6, unique_by=lambda t: t[1]))
def test_tab_texts_are_distinct_for_distinct_files_and_keep_the_unsaved_mark(tabs) -> None:
    texts = distinct_titles(tabs)
    assert len(set(texts)) == len(texts)
    for (title, _path), text in zip(tabs, texts, strict=True):
        assert text.startswith(title.removesuffix(" *"))
        assert text.endswith(" *") == title.endswith(" *")
        names = [t.removesuffix(" *") for t, _p in tabs]
        if names.count(title.removesuffix(" *")) == 1:
            assert text == title


def test_start_up_window_shows_the_theme_the_editor_showed_last(qtbot, monkeypatch) -> None:
    """With the "system" theme, start-up's window takes the theme the editor showed last
    (asking the desktop loads Qt's enums before the first paint); a chosen theme is taken
    as it is."""
    from desktop.ui import theme as themes
    from desktop.ui.settings import ui_settings

    monkeypatch.setattr(themes, "system_prefers_dark", lambda: True)
    settings = ui_settings()
    settings.setValue("theme", "system")
    settings.remove(themes.SHOWN_KEY)
    assert startup.first_theme() is themes.LIGHT  # never shown: the light one
    editor = EditorWindow()
    qtbot.addWidget(editor)
    assert editor.theme is themes.DARK
    assert startup.first_theme() is themes.DARK
    ui_settings().setValue("theme", "light")
    assert startup.first_theme() is themes.LIGHT
    ui_settings().setValue("theme", "system")
    editor.apply_theme(themes.LIGHT)  # the app's palette as the other tests expect it


def test_start_up_on_a_run_folder_shows_that_run_with_its_graph(qtbot, monkeypatch,
                                                                 past_run) -> None:
    """``agent-canvas RUN_FOLDER`` opens the run (its graph, statuses and panels), as Run
    history would, instead of refusing a folder that is not a workflow file."""
    monkeypatch.setattr(recovery, "find_orphans", lambda: [])
    run_dir = past_run(PIR, "start-up")
    host = startup.show_first_window(str(run_dir))
    try:
        editor = startup.fill_first_window(host, str(run_dir))
        assert editor is not None and host.current() is editor
        assert editor.run_origin == run_dir.resolve()
        assert editor.run_panels.session is not None
        assert editor.run_panels.session.run_dir == run_dir.resolve()
        assert host.windowTitle().startswith("Plan, implement, review — run ")
        notes = host.tabs.findChildren(type(editor.counts_label), "openingNote")
        assert notes and not any(note.isVisible() for note in notes)  # hidden, then deleted
    finally:
        host.close()


def _deleted_later() -> None:
    """Run the deletions asked for with deleteLater, as the event loop would next."""
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.mark.parametrize("how", ["tab", "new_window"])
def test_quit_quits_after_a_file_failed_to_open(shell, tmp_path, monkeypatch, qtbot, how):
    """The window made for a file that failed to open is not left among the open windows:
    Quit would ask a deleted window whether it is modified, and stay open."""
    from desktop.ui.window import OPEN_WINDOWS

    bad = tmp_path / "bad.flow.yaml"
    bad.write_text("nodes:\n  - id: a\n    colour: [red\n")
    errors: list[str] = []
    monkeypatch.setattr(EditorWindow, "show_error",
                        lambda _self, _title, text: errors.append(text))
    first = shell.current()
    monkeypatch.setattr(first.ask, "open_path", lambda *a: str(bad))
    before = list(OPEN_WINDOWS)
    (first.files.open if how == "tab" else first.files.open_new_window)()
    assert errors and "bad.flow.yaml" in errors[-1]
    assert before == OPEN_WINDOWS and shell.tabs.count() == 1
    _deleted_later()
    first.files.quit()
    qtbot.waitUntil(lambda: not isValid(shell) or not shell.isVisible())


def test_a_standalone_window_that_failed_to_open_a_file_is_forgotten(
        editor_window, tmp_path, monkeypatch):
    from desktop.ui.window import OPEN_WINDOWS

    good, bad = _copy(SINGLE, tmp_path), tmp_path / "bad.flow.yaml"
    bad.write_text("nodes: [\n")
    assert editor_window.files.open_path(good)  # not blank: the next file gets a window
    monkeypatch.setattr(EditorWindow, "show_error", lambda *_a: None)
    before = list(OPEN_WINDOWS)
    editor_window.files.open_in_window(bad)
    assert before == OPEN_WINDOWS
    _deleted_later()
    assert all(isValid(w) for w in OPEN_WINDOWS)  # what Quit asks whether it is modified


def _named(folder: Path, name: str) -> Path:
    """A copy of the single-agent workflow, named ``name``."""
    path = folder / f"named-{len(name)}.flow.yaml"
    path.write_text(SINGLE.read_text().replace("name: Single agent", f"name: {name}", 1))
    return path


def test_a_long_workflow_name_gets_one_capped_tab_and_the_others_keep_theirs(shell, tmp_path):
    name = ("A workflow whose name goes on and on " * 9)[:314]
    long_tab = shell.open_tab(_named(tmp_path, name))
    shell.patch(long_tab)
    bar, first_text = shell.tabs.tabBar(), shell.tabs.tabText(0)
    assert bar.tabRect(1).width() < bar.width() // 2
    # the other tab is as wide as its whole name asks: not squeezed to "…"
    assert bar.tabRect(0).width() >= bar.fontMetrics().horizontalAdvance(first_text)
    assert name in shell.tabs.tabToolTip(1)  # the elided tab's whole name is one hover away


def test_a_huge_workflow_name_reaches_the_window_cut_short(shell, tmp_path):
    """What Qt measures and lays out of a name is bounded: a name of four million
    characters is not handed whole to the tab, the title bar or the Inspector."""
    name = "huge " * 800_000
    long_tab = shell.open_tab(_named(tmp_path, name.strip()))
    shell.patch(long_tab)
    assert long_tab.editor.model.doc.name == name.strip()  # the document keeps it all
    texts = [shell.tabs.tabText(1), shell.tabs.tabToolTip(1), shell.windowTitle(),
             long_tab.inspector.title.text(), long_tab.inspector.title.toolTip()]
    assert all(0 < len(text) <= 600 for text in texts), [len(t) for t in texts]
