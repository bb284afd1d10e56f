"""The editor window: canvas in the middle, palette, inspector and problems around it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QSize, Qt, QTimer
from PySide6.QtGui import QActionGroup, QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPushButton,
    QTabBar,
    QToolBar,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.ui import actions as action_table
from desktop.ui import theme as themes
from desktop.ui.canvas.empty_hint import empty_hint
from desktop.ui.canvas.minimap import Minimap
from desktop.ui.canvas.scene import CanvasScene
from desktop.ui.canvas.view import CanvasView
from desktop.ui.canvas_menu import CanvasMenus
from desktop.ui.clip import clipped
from desktop.ui.editor import Editor
from desktop.ui.files import WorkflowFile
from desktop.ui.inspector import Inspector
from desktop.ui.palette import Palette
from desktop.ui.pool_warmer import PoolWarmer
from desktop.ui.popups import FilterPopup
from desktop.ui.problems import ProblemsPanel
from desktop.ui.read_only import READ_ONLY_NOTE, show_read_only
from desktop.ui.run.attach import attach_run_panels
from desktop.ui.run.bring_up import bring_up_run
from desktop.ui.run.window_parts import WindowParts
from desktop.ui.settings import ui_settings
from desktop.ui.status_message import show_whole_messages
from desktop.ui.subflow_open import open_subflow
from desktop.ui.subflow_pane import SubflowPane
from desktop.ui.subflow_pick import SubflowPicker
from desktop.ui.window_arrange import ArrangeCommands
from desktop.ui.window_compare import CompareCommands
from desktop.ui.window_edit import EditCommands
from desktop.ui.window_export import ExportCommands
from desktop.ui.window_files import FileCommands
from desktop.ui.window_help import HelpCommands
from desktop.ui.window_pickers import Pickers
from desktop.ui.window_questions import Questions
from desktop.ui.window_size import (
    DockSizes,
    dock_sizes,
    initial_geometry,
    least_size,
    room_for_canvas,
)
from desktop.ui.window_view import ViewCommands
from desktop.wording import plural

if TYPE_CHECKING:
    from desktop.ui.run.session import RunSession

OPEN_WINDOWS: list[EditorWindow] = []
THEME_CHOICES = ("system", "light", "dark")
"""The View menu's themes, as the settings name them."""
TITLE_CHARS = 80
"""The most of a workflow's name a breadcrumb shows (the Inspector's name field has it
whole)."""
TOOLBAR = ["new", "open", "save", None, "undo", "redo", None, "add_node", "auto_layout",
           "fit", None, "find", "command_palette"]


class InfoBar(QFrame):
    """A strip above the canvas with a message and buttons (file changed on disk, ...)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("infoBar")
        self.label = QLabel()
        self.label.setWordWrap(True)  # a long message wraps: it never widens the canvas
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(12, 6, 12, 6)
        self.row.addWidget(self.label, 1)
        self.buttons: list[QPushButton] = []
        self.hide()

    def ask(self, text: str, choices: list[tuple[str, object]]) -> None:
        for b in self.buttons:
            b.deleteLater()
        self.buttons = []
        self.label.setText(text)
        for caption, callback in choices:
            button = QPushButton(caption)
            button.clicked.connect(lambda _=False, cb=callback: (self.hide(), cb()))
            self.row.addWidget(button)
            self.buttons.append(button)
        self.show()


class EditorWindow(QMainWindow):
    """One workflow document, edited with the mouse and the keyboard.

    Its commands are grouped by concern in the parts it owns: ``files``, ``exports``,
    ``compare``, ``edit``, ``arrange``, ``viewing``, ``pickers`` and ``help``; the
    dialogs' questions are ``ask``'s.
    """

    def __init__(self, path: str | Path | None = None):
        super().__init__()
        OPEN_WINDOWS.append(self)
        # deleted without a close (a window whose file failed to open): it leaves the list
        # as well, else Quit and the notifier would reach a deleted window
        self.destroyed.connect(_forget_deleted_windows)
        self.host = None  # the TabbedWindow showing this document as a tab, if any
        self._run_origin: Path | None = None  # the run folder whose graph this shows
        self.run_origin_deleted = False  # that run was deleted since: the titles say so
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.theme_choice = str(ui_settings().value("theme", "system"))
        self.theme = themes.pick(self.theme_choice)
        self.editor = Editor(parent=self)
        self.file = WorkflowFile(self.editor, self)
        self.scene = CanvasScene(self.editor, self.theme, self)
        self.view = CanvasView(self.scene)
        self.view.setObjectName("canvas")
        self.empty_hint = empty_hint(self.view, self.scene)
        self.minimap = Minimap(self.view)
        self.info = InfoBar()
        center = QWidget()
        box = QVBoxLayout(center)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self.info)
        box.addWidget(self.view, 1)
        self.subflows = SubflowPane(self.theme, lambda: clipped(
            self.editor.model.doc.name or "Workflow", TITLE_CHARS))
        box.addWidget(self.subflows, 1)
        self.setCentralWidget(center)
        self.palette_panel = Palette(self.theme)
        self.inspector = Inspector(self.editor)
        self.problems = ProblemsPanel(self.editor.model, self.theme)
        self.docks = {
            "palette": self._dock("Palette", self.palette_panel,
                                  Qt.DockWidgetArea.LeftDockWidgetArea),
            "inspector": self._dock("Inspector", self.inspector,
                                    Qt.DockWidgetArea.RightDockWidgetArea),
            "problems": self._dock("Problems", self.problems,
                                   Qt.DockWidgetArea.BottomDockWidgetArea),
        }
        self.popup = FilterPopup(self)
        self.ask = Questions(self)
        self.files = FileCommands(self)
        self.exports = ExportCommands(self)
        self.compare = CompareCommands(self)
        self.edit = EditCommands(self)
        self.arrange = ArrangeCommands(self)
        self.viewing = ViewCommands(self)
        self.pickers = Pickers(self)
        self.subflow_pick = SubflowPicker(self)
        self.help = HelpCommands(self)
        self.actions_ = action_table.build(self, self.view)
        self.actions_["compare_stop"].setEnabled(False)
        self._menus()
        self._toolbar()
        self._status()
        self._wire()
        self._apply_theme_here(self.theme)
        self._place_initially()
        self.run_panels = attach_run_panels(self, self._run_parts(), follow_service=True)
        self.run_panels.sessionChanged.connect(self._run_shown)
        self.run_panels.runDeleted.connect(self.origin_run_deleted)
        self.canvas_menus = CanvasMenus(self.scene, self.actions_, self.run_panels.node_place,
                                        said=self.message, parent=self)
        self.pool_warmer = PoolWarmer(self.editor.model, lambda: self.file.path,
                                      self.run_panels.local_data_dir, parent=self)
        self.use_chosen_service()
        self._close_confirmed = False
        self.run_choice = "keep"  # what closing does to a live run: "keep" it, or "stop" it
        self._default_docks = True
        self._shown_once = False
        self._restore_layout()
        if path:
            self.files.open_path(path)
        self._update_title()
        self.view.setFocus()

    # ---------------------------------------------------------------- building
    def _dock(self, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{title.lower()}")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, dock)
        return dock

    def _menus(self) -> None:
        bar = self.menuBar()
        menus = {name: bar.addMenu(f"&{name}") for name in action_table.MENUS}
        last = None
        for spec in action_table.ACTIONS:
            if spec is None:
                if last is not None:
                    menus[last].addSeparator()
                continue
            last = spec.menu
            menus[spec.menu].addAction(self.actions_[spec.name])
            if spec.name == "open":
                self.recent_menu = QMenu("Open &Recent", self)
                self.recent_menu.aboutToShow.connect(
                    lambda: self.files.fill_recent(self.recent_menu))
                menus["File"].addMenu(self.recent_menu)
                self.examples_menu = QMenu("Open E&xample", self)
                self.examples_menu.aboutToShow.connect(
                    lambda: self.files.fill_examples(self.examples_menu))
                menus["File"].addMenu(self.examples_menu)
        panels = menus["View"].addMenu("&Panels")
        for dock in self.docks.values():
            panels.addAction(dock.toggleViewAction())
        self.menus = menus
        themes_group = QActionGroup(self)  # one theme is checked: the one in use
        for choice in THEME_CHOICES:
            themes_group.addAction(self.actions_[f"theme_{choice}"])
        # another window may have changed it since: the menu reads the setting as it opens
        menus["View"].aboutToShow.connect(self._mark_theme)
        self._mark_theme()

    def _toolbar(self) -> None:
        bar = QToolBar("Main", self)
        bar.setObjectName("toolbar_main")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        short = {"add_node": "Add Node", "auto_layout": "Auto-Layout", "fit": "Fit",
                 "command_palette": "Commands", "find": "Find", "open": "Open",
                 "new": "New", "save": "Save", "undo": "Undo", "redo": "Redo"}
        for name in TOOLBAR:
            if name is None:
                bar.addSeparator()
                continue
            button_action = self.actions_[name]
            bar.addAction(button_action)
            widget = bar.widgetForAction(button_action)
            if widget is not None:
                widget.setText(short.get(name, button_action.text()))
        self.addToolBar(bar)
        self.toolbar = bar

    def _status(self) -> None:
        bar = self.statusBar()
        self.status_message = show_whole_messages(bar)  # a long message is not cut off
        self.counts_label = QLabel()
        self.problems_label = QLabel()
        self.zoom_label = QLabel("100%")
        for w in (self.problems_label, self.counts_label, self.zoom_label):
            w.setContentsMargins(8, 0, 8, 0)
            bar.addPermanentWidget(w)

    def _wire(self) -> None:
        ed, m = self.editor, self.editor.model
        stack = ed.undo_stack
        stack.canUndoChanged.connect(self.actions_["undo"].setEnabled)
        stack.canRedoChanged.connect(self.actions_["redo"].setEnabled)
        # the step's name goes in the tooltip: the toolbar button keeps a short label
        stack.undoTextChanged.connect(lambda t: self.actions_["undo"].setToolTip(
            f"Undo {t}  (Ctrl+Z)" if t else "Undo  (Ctrl+Z)"))
        stack.redoTextChanged.connect(lambda t: self.actions_["redo"].setToolTip(
            f"Redo {t}  (Ctrl+Shift+Z)" if t else "Redo  (Ctrl+Shift+Z)"))
        self.actions_["undo"].setEnabled(False)
        self.actions_["redo"].setEnabled(False)
        self.actions_["snap"].setChecked(ed.snap_to_grid)
        self.actions_["minimap"].setChecked(True)
        ed.selectRequested.connect(self._select)
        self.scene.selectionChanged.connect(self._on_selection)
        self.scene.connectRefused.connect(lambda why: self.statusBar().showMessage(
            f"Not connected: {why}", 4000))
        self.scene.emptyDoubleClicked.connect(self.pickers.quick_add_at)
        self.scene.subflowOpened.connect(self.open_subflow)
        self.scene.subflowAsked.connect(self.subflow_pick.add_at)
        self.inspector.flowChangeRequested.connect(self.subflow_pick.change)
        self.inspector.subflowOpenRequested.connect(self.open_subflow)
        self.subflows.closed.connect(self.view.show)
        self.scene.connectionDroppedOnEmpty.connect(self.pickers.quick_add_connected)
        self.view.quickAddRequested.connect(self.pickers.quick_add_at)
        self.view.zoomChanged.connect(self._show_zoom)
        self.subflows.zoomChanged.connect(self._show_zoom)
        self.subflows.closed.connect(lambda: self._show_zoom(self.view.zoom()))
        self.palette_panel.activated.connect(self.pickers.add_from_palette)
        self.problems.selectRequested.connect(self._select_and_show)
        self.problems.problemsChanged.connect(self._on_problems)
        self.file.modifiedChanged.connect(lambda _: self._update_title())
        self.file.pathChanged.connect(lambda _: self._update_title())
        self.file.pathChanged.connect(lambda _: self._sync_read_only())
        ed.refused.connect(lambda: self.message(READ_ONLY_NOTE, 8000))
        self.file.changedOnDisk.connect(self.files.changed_on_disk)
        self.file.leftOutChanged.connect(self.problems.set_left_out)
        m.changed.connect(self._update_counts)
        m.metaChanged.connect(self._update_title)
        m.documentReset.connect(self._update_title)
        m.documentReset.connect(lambda: self.subflows.back_to(0))  # another graph now
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._on_system_scheme)
        self._update_counts()
        self._on_problems(self.problems.problems)

    # ---------------------------------------------------------------- telling the user
    def message(self, text: str, ms: int = 4000) -> None:
        """Show ``text`` in the status bar for ``ms`` milliseconds."""
        self.statusBar().showMessage(text, ms)

    def show_error(self, title: str, text: str) -> None:
        """Say in a warning box why something could not be done."""
        QMessageBox.warning(self, title, text)

    def _show_zoom(self, zoom: float) -> None:
        self.zoom_label.setText(f"{round(zoom * 100)}%")

    def open_subflow(self, node_id: str) -> bool:
        """Show the graph inside subflow node ``node_id``, with a breadcrumb back."""
        return open_subflow(self, node_id)

    # ---------------------------------------------------------------- state display
    @property
    def run_origin(self) -> Path | None:
        """The run folder whose graph this document is (a run's tab), else None."""
        return self._run_origin

    @run_origin.setter
    def run_origin(self, run_dir: Path | None) -> None:
        self._run_origin = run_dir
        self._sync_read_only()

    def _sync_read_only(self) -> None:
        """A run's graph is read-only until Save As makes it a workflow file."""
        show_read_only(self, self._run_origin is not None and self.file.path is None)

    def document_name(self) -> str:
        """The document as the questions about its unsaved changes name it: its file's
        name, else the name on its tab."""
        if self.file.path is not None:
            return self.file.display_name()
        return self.tab_title().removesuffix(" *").removeprefix("▶ ")

    def _update_title(self) -> None:
        doc_name = clipped(self.editor.model.doc.name or "Untitled workflow")
        self.setWindowTitle(f"{doc_name} — {self._where()}[*] — Agent Canvas")
        self.setWindowModified(self.file.is_modified())

    def _where(self) -> str:
        if self.run_origin is not None and self.file.path is None:
            return f"run {self._origin_name()}"
        return self.file.display_name()

    def _origin_name(self) -> str:
        assert self.run_origin is not None
        return self.run_origin.name[:8] + (" (deleted)" if self.run_origin_deleted else "")

    def _run_shown(self, session: Any) -> None:
        # a run started (Run again) or opened in a run's tab: the tab is that run's now, so
        # its name and title follow it (and "deleted" goes with the old run)
        if session is None or self.run_origin is None:
            return
        run_dir = Path(session.run_dir)
        if run_dir != self.run_origin or self.run_origin_deleted:
            self.run_origin, self.run_origin_deleted = run_dir, False
            self._update_title()

    def origin_run_deleted(self, run_id: str) -> None:
        """Run ``run_id`` was deleted: when this document is that run's graph (a tab of its
        own), its tab and title say the run is gone, as the run panels' banner does."""
        if self.run_origin is not None and self.run_origin.name == run_id:
            self.run_origin_deleted = True
            self._update_title()

    def use_chosen_service(self) -> None:
        """Be a client of the service the settings name: this machine's, or another's."""
        from desktop.ui.settings import service_url

        if service_url() is None and self.run_panels.remote is None:
            return  # this machine's, as before: the keyring and its checks stay unloaded
        from desktop.api.remote import RemoteServiceError
        from desktop.ui.settings import chosen_service

        try:
            remote = chosen_service()
        except RemoteServiceError as exc:  # say why, and stay with this machine's
            self.message(f"Settings: {exc}", 15000)
            remote = None
        if remote is not None or self.run_panels.remote is not None:
            self.run_panels.set_remote(remote)

    def show_run(self, run_dir: Path, replay: bool = False):
        """Show a past or live run with its own graph: here when it is this document's,
        else in a new tab (see desktop.ui.run.run_tabs)."""
        from desktop.ui.run.run_tabs import show_run

        return show_run(self, run_dir, replay)

    def tab_title(self) -> str:
        """The document's name on its tab: ``*`` while unsaved, ``▶`` for a run's graph."""
        name = clipped(self.editor.model.doc.name or "Untitled workflow")
        if self.run_origin is not None and self.file.path is None:
            name = f"▶ {name} · {self._origin_name()}"
        return name + (" *" if self.file.is_modified() else "")

    def _update_counts(self) -> None:
        doc = self.editor.model.doc
        self.counts_label.setText(f"{plural(len(doc.nodes), 'node')} · "
                                  f"{plural(len(doc.edges), 'edge')}")

    def _on_problems(self, problems: list) -> None:
        errors, warnings = self.problems.counts()
        if not problems and self.problems.nothing_yet:  # an empty canvas: no error of theirs
            self.problems_label.setText("Nothing to run yet: add an agent")
        elif not problems:
            self.problems_label.setText("✓ No problems")
        else:
            dot = "<span style='color:{}'>●</span>"
            self.problems_label.setText(
                f"{dot.format(self.theme.error)} {plural(errors, 'error')}  "
                f"{dot.format(self.theme.warning)} {plural(warnings, 'warning')}")
        self.scene.set_problems(self.problems.per_node())
        self.inspector.set_problems(problems)
        dock = self.docks["problems"]
        dock.setWindowTitle(f"Problems ({len(problems)})" if problems else "Problems")

    def _on_selection(self) -> None:
        self.inspector.show_selection(self.scene.selected_node_ids(),
                                      self.scene.selected_edge_keys())

    def _select(self, node_ids: list, edge_keys: list) -> None:
        self.scene.select(node_ids, edge_keys)

    def _select_and_show(self, node_ids: list, edge_keys: list) -> None:
        self.scene.select(node_ids, edge_keys)
        if node_ids:
            self.view.center_on_node(node_ids[0])

    def _run_parts(self) -> WindowParts:
        """What of this window the run panels use."""
        return WindowParts(
            document=lambda: self.editor.model.snapshot(), workflow_path=lambda: self.file.path,
            theme=lambda: self.theme, editor=self.editor, scene=self.scene,
            inspector=self.inspector, problems=self.problems,
            problems_dock=self.docks["problems"], info=self.info,
            message=self.message, show_run=self.show_run,
            follow_state=self.subflows.apply_state,
            bring_up_run=lambda run_dir, approval: bring_up_run(self, run_dir, approval))

    # ---------------------------------------------------------------- theme and layout
    def apply_theme(self, theme: themes.Theme) -> None:
        """Show the window, its canvas and its run panels in ``theme``."""
        self._apply_theme_here(theme)
        self.run_panels.set_theme(theme)

    def _apply_theme_here(self, theme: themes.Theme) -> None:
        # also before the run panels exist: they take the theme as they are made
        self.theme = theme
        app = QApplication.instance()
        if app is not None:
            themes.apply(app, theme)
            settings = ui_settings()
            if settings.value(themes.SHOWN_KEY) != theme.name:  # the next start's first look
                settings.setValue(themes.SHOWN_KEY, theme.name)
        self.scene.set_theme(theme)
        self.problems.theme = theme
        self.palette_panel.populate(theme)
        self.minimap.rebuild()

    def _on_system_scheme(self, *_: object) -> None:
        if self.theme_choice == "system":
            self.apply_theme(themes.pick("system"))

    def set_theme_choice(self, choice: str) -> None:
        self.theme_choice = choice
        ui_settings().setValue("theme", choice)
        self.apply_theme(themes.pick(choice))
        self._mark_theme()

    def _mark_theme(self) -> None:
        choice = str(ui_settings().value("theme", self.theme_choice))
        if choice in THEME_CHOICES:
            self.actions_[f"theme_{choice}"].setChecked(True)

    def _restore_layout(self) -> None:
        s = ui_settings()
        geometry, state = s.value("window/geometry"), s.value("window/state")
        if isinstance(geometry, QByteArray) and self.host is None:
            self.restoreGeometry(geometry)
        if isinstance(state, QByteArray) and self.restoreState(state):
            self._default_docks = False
        self.minimap.set_wanted(s.value("view/minimap", "true") in (True, "true"))
        self.actions_["minimap"].setChecked(self.minimap.wanted)

    def save_layout(self) -> None:
        s = ui_settings()
        if self.host is None:  # a tab's place is its tabbed window's
            s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("view/minimap", "true" if self.minimap.wanted else "false")
        s.sync()

    def _detach_run(self) -> bool:
        """Let go of the open run (the service keeps running it); True when that goes on
        in the background and the window closes itself afterwards."""
        session, self.run_panels.session = self.run_panels.session, None

        async def detach() -> None:
            try:
                await session.close()
            finally:
                self.close()

        try:
            asyncio.get_running_loop()
        except RuntimeError:  # the loop is not running (a bare QApplication): detach now
            _close_now(session)
            return False
        self._detaching = asyncio.ensure_future(detach())
        return True

    def _place_initially(self) -> None:
        """Most of the screen on a first start (a saved layout replaces it)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        self.setMinimumSize(least_size(screen.availableGeometry() if screen else None))
        if screen is None:
            self.resize(1440, 900)
            return
        self.setGeometry(initial_geometry(screen.availableGeometry()))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.minimap.place()
        old, new = event.oldSize(), event.size()
        if self._shown_once and (new.height() < old.height() or new.width() < old.width()):
            # after the layout has given the docks their share of the new size
            QTimer.singleShot(0, lambda: isValid(self) and self._keep_canvas_room())

    def _keep_canvas_room(self) -> None:
        panels = self.panel_sizes()
        canvas = self.centralWidget()
        smaller = panels and room_for_canvas(panels, self.size(), canvas.size())
        if smaller:
            self.set_panel_sizes(smaller)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._shown_once = True
        self.minimap.place()
        if self._default_docks:  # first start: the panels' default sizes
            self._default_docks = False
            shown = self.size()
            self._size_docks(shown)
            # and again once laid out, if that changed the size: a tab's page is shown
            # before its window gives it its size, and sizes taken from the larger one
            # would leave the canvas what the shrinking takes away
            QTimer.singleShot(0, lambda: isValid(self) and self.size() != shown
                              and self._size_docks(self.size()))

    def _size_docks(self, size: QSize) -> None:
        self.set_panel_sizes(dock_sizes(size))

    def _bottom_docks(self) -> list[QDockWidget]:
        return [d for d in self.findChildren(QDockWidget) if not d.isHidden()
                and self.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea]

    def panel_sizes(self) -> DockSizes | None:
        """The side panels' widths and the bottom tabs' height as they are now (None before
        the window is shown)."""
        bottom = [d for d in self._bottom_docks() if d.isVisibleTo(self)]  # the front tab
        if not self._shown_once or not bottom:
            return None
        return DockSizes(self.docks["palette"].width(), self.docks["inspector"].width(),
                         max(d.height() for d in bottom) + self._bottom_tabs_height())

    def _bottom_tabs_height(self) -> int:
        """The height of the tab bar under the tabbed bottom docks: resizeDocks sizes the
        area with it, a dock's own height leaves it out."""
        area = max(d.geometry().bottom() for d in self._bottom_docks() if d.isVisibleTo(self))
        bars = [b for b in self.findChildren(QTabBar, options=Qt.FindChildOption.
                                             FindDirectChildrenOnly)
                if b.isVisibleTo(self) and b.geometry().top() >= area]
        return max((b.height() for b in bars), default=0)

    def set_panel_sizes(self, sizes: DockSizes) -> None:
        """Give the side panels and the bottom tabs these sizes (the canvas takes the
        rest)."""
        bottom = self._bottom_docks()
        self.resizeDocks(bottom, [sizes.bottom] * len(bottom), Qt.Orientation.Vertical)
        self.resizeDocks([self.docks["palette"], self.docks["inspector"]],
                         [sizes.palette, sizes.inspector], Qt.Orientation.Horizontal)

    def take_panel_sizes(self, sizes: DockSizes) -> None:
        """Another tab's panel sizes, for this tab coming to the front: now, and again once
        it is laid out (a page is shown before its window gives it its size)."""
        self._default_docks = False
        self.set_panel_sizes(sizes)
        QTimer.singleShot(0, lambda: isValid(self) and self.set_panel_sizes(sizes))

    # ---------------------------------------------------------------- closing
    def discard(self) -> None:
        """Throw this window away unshown (its file failed to open): it is no open window
        from now on, and is deleted."""
        self.file.close()
        if self in OPEN_WINDOWS:
            OPEN_WINDOWS.remove(self)
        self.deleteLater()

    def keeps_unsaved_work(self) -> bool:
        """Whether a close was refused because the user kept unsaved changes."""
        return isValid(self) and not self._close_confirmed

    def _decide_close(self) -> bool:
        """Ask about this window's unsaved changes and live run (every answer is taken
        before anything happens); False when the user cancelled."""
        from desktop.ui.closing import settle

        return settle([self], lambda unsaved, live: self.ask.closing(unsaved, live, False))

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._close_confirmed and not self._decide_close():
            event.ignore()
            return
        self._close_confirmed = True
        session = self.run_panels.session
        if session is not None and self.run_choice == "stop" and session.running:
            session.stop()  # sent before detaching: the detach waits for its answer
        # Detach from the run first (the service keeps running it), then close for real.
        if session is not None and self._detach_run():
            event.ignore()
            return
        self.save_layout()
        self.file.close()
        self.pool_warmer.stop()
        self.run_panels.release()
        # the window is deleted next; its parts must not signal each other half-destroyed
        self.editor.undo_stack.blockSignals(True)
        self.editor.model.blockSignals(True)
        self.scene.blockSignals(True)
        if self in OPEN_WINDOWS:
            OPEN_WINDOWS.remove(self)
        event.accept()
        if self.host is not None and isValid(self.host):
            self.host.forget(self)


def _forget_deleted_windows(*_args: object) -> None:
    """Drop from OPEN_WINDOWS every window whose C++ object is gone (``destroyed`` is
    emitted after the Python wrapper was invalidated, so it is among them)."""
    OPEN_WINDOWS[:] = [w for w in OPEN_WINDOWS if isValid(w)]


def _close_now(session: RunSession) -> None:
    """Close ``session`` now, while no loop runs (a bare QApplication): on the loop its
    tasks are on, else on a loop of its own that is closed after (never on one the policy
    would make and leave open)."""
    loop = session.loop()
    if loop is not None and not loop.is_closed() and not loop.is_running():
        loop.run_until_complete(session.close())
        return
    with asyncio.Runner() as runner:
        runner.run(session.close())
