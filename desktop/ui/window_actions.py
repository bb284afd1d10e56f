"""The editor window's command handlers (menus, toolbar, shortcuts, command palette).

Dialog questions go through small ``ask_*`` methods so tests can answer them.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from PySide6.QtCore import QPointF
from PySide6.QtGui import QCursor, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox

from desktop import __version__
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import WORKFLOW_SUFFIX
from desktop.store.atomic import atomic_write_text
from desktop.ui.editor import GRID
from desktop.ui.palette import entries
from desktop.ui.popups import Choice
from desktop.ui.settings import add_recent
from desktop.wording import plural

FLOW_FILTER = f"Workflows (*{WORKFLOW_SUFFIX});;YAML (*.yaml *.yml);;All files (*)"


class WindowCommands:
    """Mixin for EditorWindow: one method per action in desktop.ui.actions."""

    # ---------------------------------------------------------------- questions (tests patch)
    def ask_save_changes(self) -> str:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setText(f"Save changes to {self.file.display_name()} before closing?")
        box.setInformativeText("Your changes are lost if you don't save them.")
        box.setStandardButtons(QMessageBox.StandardButton.Save
                               | QMessageBox.StandardButton.Discard
                               | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(answer, "cancel")

    def ask_live_run(self) -> str:
        """Closing over a live run: ``"keep"`` it running, ``"stop"`` it, or ``"cancel"``."""
        from desktop.ui.close_dialog import ask_live_run
        from desktop.ui.closing import run_name

        return ask_live_run(self, run_name(self))

    def ask_closing(self, unsaved: list[str], live: list[str], quitting: bool):
        """One question for many documents and runs: a CloseAnswer, or None (Cancel)."""
        from desktop.ui.close_dialog import ask_closing

        return ask_closing(self.host or self, unsaved, live, quitting)

    def ask_open_path(self, caption: str = "Open Workflow", filters: str = FLOW_FILTER) -> str:
        start = str(self.file.path.parent) if self.file.path else str(Path.cwd())
        return QFileDialog.getOpenFileName(self, caption, start, filters)[0]

    def ask_save_path(self, caption: str, suggested: str, filters: str) -> str:
        folder = self.file.path.parent if self.file.path else Path.cwd()
        return QFileDialog.getSaveFileName(self, caption, str(folder / suggested), filters)[0]

    def ask_folder(self, caption: str) -> str:
        start = str(self.file.path.parent) if self.file.path else str(Path.cwd())
        return QFileDialog.getExistingDirectory(self, caption, start)

    def show_error(self, title: str, text: str) -> None:
        QMessageBox.warning(self, title, text)

    def message(self, text: str, ms: int = 4000) -> None:
        self.statusBar().showMessage(text, ms)

    # ---------------------------------------------------------------- files
    def open_path(self, path: str | Path) -> bool:
        try:
            self.file.open(path)
        except WorkflowLoadError as exc:
            self.show_error("Cannot open workflow", "\n".join(str(p) for p in exc.problems))
            return False
        self.file_compare_stop()  # another document: the comparison was about the last one
        add_recent(self.file.path)
        self.info.hide()
        self.view.fit()
        self.message(f"Opened {self.file.path}")
        if self.file.left_out:
            self._say_left_out(len(self.file.left_out))
        return True

    def _say_left_out(self, count: int) -> None:
        """A file opened with wrong fields: say so above the canvas, and list them."""
        self.info.ask(f"Opened with {plural(count, 'wrong field')} left out, listed in "
                      "Problems and marked on the canvas. Fix them here and save; until "
                      "then the workflow does not run.",
                      [("Show Problems", self._show_problems)])
        self._show_problems()

    def _show_problems(self) -> None:
        self.docks["problems"].show()
        self.docks["problems"].raise_()

    def _is_blank(self) -> bool:
        return (self.file.path is None and not self.file.is_modified()
                and not self.editor.model.doc.nodes)

    def open_in_window(self, path: str | Path) -> None:
        """Open in this window when it is blank, else in a new tab (a new window when this
        one is not tabbed)."""
        if self._is_blank():
            self.open_path(path)
            return
        if self.host is not None:
            self.host.open_tab(path)
            return
        from desktop.ui.window import EditorWindow

        other = EditorWindow()
        if other.open_path(path):
            other.show()
        else:
            other.file.close()
            other.deleteLater()

    def document_window(self):
        """A new, empty document beside this one: a tab of this window's tabs, or a
        window of its own when this one is not tabbed."""
        from desktop.ui.window import EditorWindow

        other = EditorWindow()
        if self.host is not None:
            return self.host.add(other)
        other.show()
        return other

    def file_open_new_window(self) -> None:
        """Open a workflow in a window of its own (its own tabs)."""
        path = self.ask_open_path()
        if not path:
            return
        from desktop.ui.tabs import tabbed
        from desktop.ui.window import EditorWindow

        other = EditorWindow()
        if other.open_path(path):
            tabbed(other)
        else:
            other.file.close()
            other.deleteLater()

    def file_new(self) -> None:
        if not self._is_blank():
            self.document_window()

    def ask_template(self):
        """The template picked in the gallery, or None."""
        from desktop.ui.template_gallery import TemplateGallery

        gallery = TemplateGallery(self, self.theme)
        try:
            return gallery.chosen() if gallery.exec() else None
        finally:
            gallery.deleteLater()

    def file_new_from_template(self) -> None:
        template = self.ask_template()
        if template is not None:
            self.open_template(template)

    def open_template(self, template) -> None:
        """A new, untitled workflow copied from ``template`` (here when this window is
        blank, else in a new window); Save asks where it goes."""
        target = self if self._is_blank() else self.document_window()
        target.file.new(template.new_document())
        target.show()
        target.view.fit()
        target.message(f"New workflow from “{template.title}”: save it to keep it")

    def file_new_window(self) -> None:
        from desktop.ui.window import EditorWindow

        if self.host is None:
            EditorWindow().show()
            return
        from desktop.ui.tabs import tabbed

        tabbed(EditorWindow())

    def file_open(self) -> None:
        path = self.ask_open_path()
        if path:
            self.open_in_window(path)

    def file_open_evaluation(self) -> None:
        folder = self.ask_folder("Open Evaluation (the --out folder of eval run)")
        if folder:
            from desktop.ui.run.evaluations import open_evaluation

            # a case's run has its own graph (the baseline's or the new workflow's): it
            # shows with that graph, in a tab of its own when it is not this window's
            open_evaluation(self, folder, self.show_run, self.show_error)

    def file_compare(self) -> None:
        path = self.ask_open_path("Compare With Workflow")
        if path:
            self.compare_with(path)

    def file_compare_commit(self) -> None:
        from desktop.ui.compare_history import compare_with_commit

        compare_with_commit(self)

    def ask_commits(self, commits: list, name: str) -> list:
        """Which of a workflow's commits to compare (tests answer for the dialog)."""
        from desktop.ui.compare_history import ask_commits

        return ask_commits(self, commits, name)

    def compare_with(self, path: str | Path) -> bool:
        """Draw on the canvas how this workflow differs from the one at ``path``."""
        from desktop.graph.io import load_workflow

        try:
            other = load_workflow(path)
        except WorkflowLoadError as exc:
            self.show_error("Cannot compare", "\n".join(str(p) for p in exc.problems))
            return False
        return self.compare_with_document(other, Path(path).name)

    def compare_with_document(self, other, name: str) -> bool:
        """Draw on the canvas how this workflow differs from ``other`` (named ``name``)."""
        from desktop.graph.flow_diff_text import summary
        from desktop.ui.canvas.compare_overlay import CompareOverlay

        self.file_compare_stop()
        self.compare_overlay = CompareOverlay(self.scene, self.inspector, other, name)
        self.actions_["compare_stop"].setEnabled(True)
        self.view.fit(self.compare_overlay.bounds())  # removed nodes in sight too
        self.info.ask(f"Compared with {name}: {summary(self.compare_overlay.diff)}. "
                      "Green: added here, amber: changed, faint red: removed.",
                      [("Stop Comparing", self.file_compare_stop)])
        return True

    def file_compare_stop(self) -> None:
        overlay, self.compare_overlay = self.compare_overlay, None
        self.actions_["compare_stop"].setEnabled(False)
        if overlay is not None:
            overlay.stop()
            overlay.deleteLater()
            self.info.hide()

    def file_save(self) -> bool:
        if self.file.path is None:
            return self.file_save_as()
        return self._save_to(self.file.path)

    def file_save_as(self) -> bool:
        suggested = (self.file.path.name if self.file.path
                     else _slug(self.editor.model.doc.name) + WORKFLOW_SUFFIX)
        path = self.ask_save_path("Save Workflow As", suggested, FLOW_FILTER)
        if not path:
            return False
        if not path.endswith((".yaml", ".yml")):
            path += WORKFLOW_SUFFIX
        return self._save_to(path)

    def _save_to(self, path: str | Path) -> bool:
        try:
            saved = self.file.save(path)
        except OSError as exc:
            self.show_error("Cannot save", f"{path}: {exc.strerror or exc}")
            return False
        add_recent(saved)
        self.info.hide()
        self.message(f"Saved {saved}")
        return True

    def file_revert(self) -> None:
        if self.file.is_modified():
            self.file.revert()
            self.message("Reverted to the saved file")

    def _on_changed_on_disk(self, path: str) -> None:
        note = " You have unsaved changes." if self.file.is_modified() else ""
        self.info.ask(f"{Path(path).name} was changed by another program.{note}",
                      [("Reload", self.reload_from_disk), ("Keep Mine", lambda: None)])

    def reload_from_disk(self) -> None:
        if self.file.path is not None:
            self.open_path(self.file.path)

    def file_import_mermaid(self) -> None:
        from desktop.graph.mermaid import from_mermaid

        path = self.ask_open_path("Import Mermaid", "Mermaid (*.mmd *.mermaid *.md);;All (*)")
        if not path:
            return
        try:
            doc = from_mermaid(Path(path).read_text(encoding="utf-8"), Path(path).stem)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            self.show_error("Cannot import Mermaid", f"{path}: {exc}")
            return
        self.editor.replace_document(doc, "Import Mermaid")
        self.view.fit()

    def file_export_mermaid(self) -> None:
        from desktop.graph.mermaid import to_mermaid

        path = self._export_path("Export Mermaid", ".mmd", "Mermaid (*.mmd)")
        if path:
            atomic_write_text(path, to_mermaid(self.editor.model.doc))
            self.message(f"Exported {path}")

    def file_export_png(self) -> None:
        from desktop.ui.export_image import export_png

        path = self._export_path("Export PNG", ".png", "PNG image (*.png)")
        if path:
            export_png(self.scene, path)
            self.message(f"Exported {path}")

    def file_export_svg(self) -> None:
        from desktop.ui.export_image import export_svg

        path = self._export_path("Export SVG", ".svg", "SVG image (*.svg)")
        if path:
            export_svg(self.scene, path, self.editor.model.doc.name)
            self.message(f"Exported {path}")

    def _export_path(self, caption: str, suffix: str, filters: str) -> str:
        stem = (self.file.path.name.removesuffix(WORKFLOW_SUFFIX) if self.file.path
                else _slug(self.editor.model.doc.name))
        path = self.ask_save_path(caption, stem + suffix, filters)
        if path and not path.endswith(suffix):
            path += suffix
        return path

    def file_close(self) -> None:
        """Close this workflow: its window, or its tab (the window's close asks first)."""
        self.close()

    def app_quit(self) -> None:
        from desktop.ui.closing import settle
        from desktop.ui.tabs import TAB_WINDOWS
        from desktop.ui.window import OPEN_WINDOWS

        # One question for every unsaved document and live run of every window, before
        # anything closes: Cancel (or a save that did not happen) leaves every tab open.
        windows = [*TAB_WINDOWS, *(w for w in OPEN_WINDOWS if w.host is None)]
        editors = [e for w in windows for e in (w.editors() if w in TAB_WINDOWS else [w])]
        if not settle(editors, lambda unsaved, live: self.ask_closing(unsaved, live, True)):
            return
        # The app ends when the last window has closed (app.until_every_window_closed).
        # A window with a live run closes a moment later, once it has let go of the run.
        for window in windows:
            if not window.close() and window.keeps_unsaved_work():
                return

    # ---------------------------------------------------------------- edit
    def edit_undo(self) -> None:
        self.editor.undo_stack.undo()

    def edit_redo(self) -> None:
        self.editor.undo_stack.redo()

    def edit_copy(self) -> None:
        ids = self.scene.selected_node_ids()
        if not ids:
            return
        # plain workflow YAML: pastes into another window, another process, or a text editor
        QGuiApplication.clipboard().setText(self.editor.copy_text(ids))
        self.message(f"Copied {plural(len(ids), 'node')}")

    def edit_cut(self) -> None:
        self.edit_copy()
        self.editor.delete(self.scene.selected_node_ids(), self.scene.selected_edge_keys())

    def edit_paste(self) -> None:
        ids = self.editor.paste_text(QGuiApplication.clipboard().text(), self._cursor_point())
        if not ids:
            self.message("Nothing to paste: the clipboard holds no workflow nodes")

    def _cursor_point(self) -> tuple[float, float] | None:
        local = self.view.mapFromGlobal(QCursor.pos())
        if not self.view.viewport().rect().contains(local):
            return None
        p = self.view.mapToScene(local)
        return p.x(), p.y()

    def edit_duplicate(self) -> None:
        self.editor.duplicate(self.scene.selected_node_ids())

    def edit_delete(self) -> None:
        self.editor.delete(self.scene.selected_node_ids(), self.scene.selected_edge_keys(),
                           self.scene.decorations.selected_keys())

    def _add_point(self) -> tuple[float, float]:
        point = self._cursor_point()
        if point is None:
            center = self.view.mapToScene(self.view.viewport().rect().center())
            point = (center.x(), center.y())
        return point

    def edit_add_note(self) -> None:
        note_id = self.editor.add_note(self._add_point())
        self.scene.select([])
        self.scene.decorations.select([("note", note_id)])
        self.scene.decorations.edit_in_place(self.scene.decorations.items[("note", note_id)])

    def edit_add_group(self) -> None:
        group_id = self.editor.add_group(self._add_point(), self.scene.selected_node_ids())
        self.scene.select([])
        self.scene.decorations.select([("group", group_id)])

    def edit_select_all(self) -> None:
        self.scene.select(list(self.scene.nodes), list(self.scene.edges))

    def _connect_selected(self, edge_type: str) -> None:
        ids = sorted(self.scene.selected_node_ids(),
                     key=lambda i: self.scene.nodes[i].pos().x())
        made = [self.editor.connect(a, b, edge_type) for a, b in itertools.pairwise(ids)]
        if len(ids) < 2:
            self.message("Select two or more nodes to connect them left to right")
        elif not any(made):
            self.message("Those nodes are connected already")

    def edit_connect_handoff(self) -> None:
        self._connect_selected("handoff")

    def edit_connect_report(self) -> None:
        self._connect_selected("report")

    def edit_rename(self) -> None:
        if len(self.scene.selected_node_ids()) == 1:
            self.docks["inspector"].show()
            widget = self.inspector.widgets[("node", "label")][1]
            widget.setFocus()
            widget.selectAll()

    # ---------------------------------------------------------------- pop-ups
    def show_quick_add(self) -> None:
        self.show_quick_add_at(self.view.cursor_scene_pos())

    def _popup_at(self, scene_point: QPointF):
        return self.view.viewport().mapToGlobal(self.view.mapFromScene(scene_point))

    def show_quick_add_at(self, scene_point: QPointF, then=None) -> None:
        choices = [Choice(e["title"], e["kind"], e) for e in entries()]

        def add(spec: dict) -> None:
            node_id = self.scene.drop_template(
                {"kind": "role", "name": "implementer", "provider": spec["name"]}
                if spec["kind"] == "provider" else spec, scene_point)
            if then and node_id:
                then(node_id)

        self.popup.open("Add node", choices, self._popup_at(scene_point), add,
                        "Role or provider, e.g. planner")

    def quick_add_connected(self, source: str, scene_point: QPointF) -> None:
        """A connection dropped on empty canvas: add a node there, connected."""
        self.show_quick_add_at(scene_point, lambda new: self.editor.connect(source, new))

    def _add_from_palette(self, spec: dict) -> None:
        center = self.view.mapToScene(self.view.viewport().rect().center())
        self.scene.drop_template(spec, center)

    def show_find(self) -> None:
        choices = [Choice(n.label or n.id, f"{n.id} · {n.role_template}", n.id)
                   for n in self.editor.model.doc.nodes]

        def go(node_id: str) -> None:
            self.scene.select([node_id])
            self.view.center_on_node(node_id)

        top = self.view.mapToGlobal(self.view.rect().topLeft())
        at = top + QPointF(self.view.width() / 2 - 210, 40).toPoint()
        self.popup.open("Find node", choices, at, go, "Node name or id")

    def command_choices(self) -> list[Choice]:
        """Every enabled command of the window, the run toolbar's included, with its keys."""
        from desktop.ui.help_dialog import command_name, run_actions

        choices = []
        actions = [a for n, a in self.actions_.items() if n != "command_palette"]
        for action in [*actions, *run_actions(self.run_panels)]:
            if not action.isEnabled() or not command_name(action):
                continue
            keys = ", ".join(s.toString() for s in action.shortcuts())
            choices.append(Choice(command_name(action).rstrip("…"), keys, action))
        return choices

    def show_command_palette(self) -> None:
        choices = self.command_choices()
        top = self.view.mapToGlobal(self.view.rect().topLeft())
        at = top + QPointF(self.view.width() / 2 - 210, 40).toPoint()
        self.popup.open("Commands", choices, at, lambda a: a.trigger(), "Type a command")

    # ---------------------------------------------------------------- view
    def view_zoom_in(self) -> None:
        self.view.zoom_in()

    def view_zoom_out(self) -> None:
        self.view.zoom_out()

    def view_zoom_reset(self) -> None:
        self.view.reset_zoom()

    def view_fit(self) -> None:
        self.view.fit()

    def view_fit_selection(self) -> None:
        rect = None
        for node_id in self.scene.selected_node_ids():
            r = self.scene.nodes[node_id].sceneBoundingRect()
            rect = r if rect is None else rect.united(r)
        self.view.fit(rect)

    def view_toggle_minimap(self) -> None:
        self.minimap.set_wanted(self.actions_["minimap"].isChecked())

    def view_toggle_snap(self) -> None:
        self.editor.snap_to_grid = self.actions_["snap"].isChecked()

    def view_theme_system(self) -> None:
        self.set_theme_choice("system")

    def view_theme_light(self) -> None:
        self.set_theme_choice("light")

    def view_theme_dark(self) -> None:
        self.set_theme_choice("dark")

    # ---------------------------------------------------------------- arrange
    def arrange_auto_layout(self) -> None:
        self.editor.auto_layout()
        self.view.fit()

    def _align(self, how: str) -> None:
        self.editor.align(self.scene.selected_node_ids(), how)

    def arrange_align_left(self) -> None:
        self._align("left")

    def arrange_align_right(self) -> None:
        self._align("right")

    def arrange_align_top(self) -> None:
        self._align("top")

    def arrange_align_bottom(self) -> None:
        self._align("bottom")

    def arrange_align_hcenter(self) -> None:
        self._align("hcenter")

    def arrange_align_vcenter(self) -> None:
        self._align("vcenter")

    def arrange_distribute_h(self) -> None:
        self.editor.distribute(self.scene.selected_node_ids(), "x")

    def arrange_distribute_v(self) -> None:
        self.editor.distribute(self.scene.selected_node_ids(), "y")

    def _nudge(self, dx: float, dy: float) -> None:
        ids = self.scene.selected_node_ids()
        if ids:
            pos = self.editor.positions(ids)
            self.editor.move({i: (x + dx, y + dy) for i, (x, y) in pos.items()}, "Nudge")

    def arrange_nudge_left(self) -> None:
        self._nudge(-GRID, 0)

    def arrange_nudge_right(self) -> None:
        self._nudge(GRID, 0)

    def arrange_nudge_up(self) -> None:
        self._nudge(0, -GRID)

    def arrange_nudge_down(self) -> None:
        self._nudge(0, GRID)

    def show_settings(self) -> None:
        from desktop.ui.settings_dialog import SettingsDialog

        SettingsDialog(self).exec()

    # ---------------------------------------------------------------- help
    def show_shortcuts(self) -> None:
        from desktop.ui.help_dialog import ShortcutsDialog

        ShortcutsDialog(self).exec()

    def show_about(self) -> None:
        QMessageBox.about(self, "About Agent Canvas",
                          f"<b>Agent Canvas</b> {__version__}<br>Draw, run and replay "
                          "agent-orchestration graphs.")


def _slug(name: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "-" for ch in name).strip("-")
    while "--" in out:
        out = out.replace("--", "-")
    return out or "workflow"

