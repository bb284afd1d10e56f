"""Document tabs: one top-level window holds workflows and runs, each in a tab of its own.

Each tab is a whole :class:`~desktop.ui.window.EditorWindow` (its canvas, docks, file,
recovery copy, undo history and run), embedded as a page, so everything a window does
per document it does per tab. The tabbed window shows the current tab's menus in its
own menu bar (their shortcuts then work, and only the current tab's), its title in the
title bar, and each tab's name (with ``*`` while unsaved) on its tab.

A window per file stays possible: File > Open in New Window, and New Window.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSize
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QMainWindow, QTabBar, QTabWidget, QWidget
from shiboken6 import isValid

from desktop.ui.settings import ui_settings

TAB_WINDOWS: list[TabbedWindow] = []
MODIFIED = " *"
TAB_CHARS = 48
"""A tab is at most about this many average characters wide; a longer name is elided
on its own tab (its tooltip has it), and the other tabs keep theirs."""


def distinct_titles(tabs: list[tuple[str, Path | None]]) -> list[str]:
    """Each tab's text (its title, ``*`` at the end while unsaved) where tabs whose titles
    are the same get the end of their file's path after the name, as much as sets them
    apart: ``Review · a/review.flow.yaml`` beside ``Review · b/review.flow.yaml``."""
    def name(title: str) -> str:
        return title.removesuffix(MODIFIED)

    out = []
    for title, path in tabs:
        others = [p for t, p in tabs if name(t) == name(title)]
        if path is None or len(others) < 2:
            out.append(title)
            continue
        parts = path.parts
        depth = 1
        while depth < len(parts) and sum(
                1 for p in others if p is not None and p.parts[-depth:] == parts[-depth:]) > 1:
            depth += 1
        where = "/".join(parts[-depth:])
        out.append(f"{name(title)} · {where}" + (MODIFIED if title.endswith(MODIFIED) else ""))
    return out


class DocumentTabBar(QTabBar):
    """Document tabs of a capped width: without a cap, a tab asks for its whole name, and
    a long one takes the bar while every other tab shrinks to "…"."""

    def tabSizeHint(self, index: int) -> QSize:
        size = super().tabSizeHint(index)
        size.setWidth(min(size.width(), self.fontMetrics().averageCharWidth() * TAB_CHARS))
        return size


class TabbedWindow(QMainWindow):
    """A top-level window of document tabs (workflows and runs)."""

    def __init__(self) -> None:
        super().__init__()
        TAB_WINDOWS.append(self)
        # Deleted once closed (closeEvent), as WA_DeleteOnClose would; that flag, an elide
        # mode or a shortcut would load the Qt namespace's enums (20 ms) before start-up's
        # first paint, so what needs them is set with the first tab (_first_tab).
        self.tabs = QTabWidget()
        self.tabs.setTabBar(DocumentTabBar())  # before any tab: Qt takes no other later
        self.tabs.setObjectName("documentTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(True)
        self.tabs.setMovable(True)
        self.tabs.tabCloseRequested.connect(lambda i: self.close_tab(self.editor_at(i)))
        self._front = None  # the editor whose tab was in front last
        self.tabs.currentChanged.connect(self._current_changed)
        self.setCentralWidget(self.tabs)
        self._closing = False
        self._window_closing = False
        """The window itself is closing (its close was not cancelled): its last tab
        going closes it, where a tab closed alone leaves a new untitled tab."""
        self._place()

    # --- tabs ---------------------------------------------------------------------------

    def editors(self) -> list:
        """The EditorWindow of every tab, in tab order."""
        return [self.tabs.widget(i) for i in range(self.tabs.count())]

    def editor_at(self, index: int):
        """The EditorWindow of tab ``index`` (None when there is none)."""
        return self.tabs.widget(index)

    def current(self):
        """The EditorWindow of the current tab."""
        return self.tabs.currentWidget()

    def add(self, editor, focus: bool = True):
        """Take ``editor`` (an EditorWindow) as a new tab."""
        from PySide6.QtCore import Qt

        if not self.tabs.count():
            self._first_tab()
        editor.host = self
        editor.setWindowFlags(Qt.WindowType.Widget)
        editor.menuBar().hide()  # its menus show in this window's menu bar
        editor.actions_["close"].setText("&Close Tab")
        index = self.tabs.addTab(editor, editor.tab_title())
        editor.windowTitleChanged.connect(lambda _t, e=editor: self._retitle(e))
        editor.file.modifiedChanged.connect(lambda _m, e=editor: self._retitle(e))
        editor.destroyed.connect(self._tab_gone)
        if focus:
            self.tabs.setCurrentIndex(index)
        self._retitle(editor)
        return editor

    def _first_tab(self) -> None:
        """What the window needs once it has tabs: middle elision, Ctrl+(Shift+)Tab."""
        from PySide6.QtCore import Qt

        self.tabs.setElideMode(Qt.TextElideMode.ElideMiddle)
        if self.findChild(QAction, "next_tab") is not None:
            return
        for name, keys, step in (("next_tab", "Ctrl+Tab", 1),
                                 ("previous_tab", "Ctrl+Shift+Tab", -1)):
            action = QAction(self)
            action.setObjectName(name)
            action.setShortcut(QKeySequence(keys))
            action.triggered.connect(lambda _c=False, s=step: self.step_tab(s))
            self.addAction(action)

    def new_tab(self):
        """A new untitled workflow in a new tab."""
        from desktop.ui.window import EditorWindow

        return self.add(EditorWindow())

    def open_tab(self, path: str | Path):
        """``path`` in a tab: the tab that has it already, else the window's only tab when
        that is a pristine untitled workflow (it would be left as a useless extra tab),
        else a new one (None when it cannot be read; the error is shown)."""
        target = Path(path).expanduser().resolve()
        editors = self.editors()
        for editor in editors:
            if editor.file.path == target:
                self.tabs.setCurrentWidget(editor)
                return editor
        if len(editors) == 1 and editors[0].files.is_blank():
            return editors[0] if editors[0].files.open_path(target) else None
        from desktop.ui.window import EditorWindow

        editor = EditorWindow()
        if not editor.files.open_path(target):
            editor.discard()
            return None
        return self.add(editor)

    def close_tab(self, editor) -> bool:
        """Close one tab (asks to save, and what its live run is to do)."""
        return editor is None or editor.close()

    def step_tab(self, step: int) -> None:
        """Bring the next (``1``) or the previous (``-1``) tab forward, round the end."""
        if self.tabs.count():
            self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % self.tabs.count())

    def forget(self, editor) -> None:
        """``editor`` closed: drop its tab now (the widget is deleted later)."""
        index = self.tabs.indexOf(editor)
        if index >= 0:
            self.tabs.removeTab(index)
        self._tab_gone()

    def _tab_gone(self, *_args: object) -> None:
        if self.tabs.count() == 0 and not self._closing:
            if self._window_closing:
                self.close()  # the window's last tab let go of its run: the window goes
            else:
                # the last tab closed on its own: the window stays, as the app starts with
                # no file (a run kept in the background is found again from Run history)
                self.new_tab()
        else:
            self._name_tabs()  # a name it shared may be alone now

    def _name_tabs(self) -> None:
        """Every tab's text; two tabs never read the same while their files differ."""
        editors = [e for e in self.editors() if e is not None and isValid(e)]
        texts = distinct_titles([(e.tab_title(), e.file.path) for e in editors])
        for editor, text in zip(editors, texts, strict=True):
            self.tabs.setTabText(self.tabs.indexOf(editor), text)

    # --- what the window shows of the current tab ----------------------------------------

    def _retitle(self, editor) -> None:
        index = self.tabs.indexOf(editor)
        if index < 0:
            return
        self._name_tabs()
        self.tabs.setTabToolTip(index, editor.windowTitle().replace("[*]", ""))
        if editor is self.current():
            self.setWindowTitle(editor.windowTitle())
            self.setWindowModified(editor.isWindowModified())

    def _current_changed(self, _index: int) -> None:
        editor = self.current()
        before, self._front = self._front, editor
        bar = self.menuBar()
        bar.clear()
        if editor is None:
            return
        if before is not None and before is not editor and isValid(before):
            sizes = before.panel_sizes()  # the window's layout, whichever tab is in front
            if sizes is not None:
                editor.take_panel_sizes(sizes)
        for menu in editor.menus.values():
            bar.addMenu(menu)
        self._retitle(editor)
        editor.view.setFocus()

    # --- geometry and closing -------------------------------------------------------------

    def _place(self) -> None:
        from desktop.ui.window_size import initial_geometry, least_size

        screen = self.screen() or QGuiApplication.primaryScreen()
        self.setMinimumSize(least_size(screen.availableGeometry() if screen else None))
        geometry = ui_settings().value("window/geometry")
        if isinstance(geometry, QByteArray) and self.restoreGeometry(geometry):
            return
        if screen is None:
            self.resize(1440, 900)
        else:
            self.setGeometry(initial_geometry(screen.availableGeometry()))

    def keeps_unsaved_work(self) -> bool:
        """Whether a close was refused because the user kept a tab's unsaved changes."""
        return any(editor.keeps_unsaved_work() for editor in self.editors())

    def closeEvent(self, event: QCloseEvent) -> None:
        from desktop.ui.closing import settle

        current = self.current()
        # one question for every tab, before any tab closes (Cancel: all stay open)
        if current is not None and not settle(
                self.editors(), lambda unsaved, live: current.ask.closing(unsaved, live, False)):
            event.ignore()
            return
        self._closing = self._window_closing = True
        detaching = False
        for editor in self.editors():
            self.tabs.setCurrentWidget(editor)
            if editor.close():
                continue
            if not editor._close_confirmed:  # the user kept unsaved work: stay open
                self._closing = self._window_closing = False
                event.ignore()
                return
            detaching = True  # its run detaches first; the tab then closes itself
        if detaching:
            self._closing = False  # the last tab to go closes the window
            event.ignore()
            return
        settings = ui_settings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.sync()
        if self in TAB_WINDOWS:
            TAB_WINDOWS.remove(self)
        event.accept()
        self.deleteLater()


def tabbed(editor) -> QWidget:
    """Show ``editor`` as the first tab of a new tabbed window; returns that window."""
    window = TabbedWindow()
    window.add(editor)
    window.show()
    # asked for, not left to a window manager (there may be none: the first key press,
    # F5 say, would reach no window until a click)
    window.raise_()
    window.activateWindow()
    return window
