"""The inspector: edit the selected node, edge, or the workflow itself, with inline checks.

Each committed field becomes one undoable command. A value the document would
reject is not committed; the field turns red and says why.
"""

from __future__ import annotations

import copy
import re

from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.contract.executor import executor_json
from desktop.contract.isolation import WorktreeSetup
from desktop.contract.sandbox import Sandbox
from desktop.contract.state import Capabilities, NodeConfig, Permissions
from desktop.graph.document import SLUG_PATTERN, WorkflowEdge, WorkflowNode
from desktop.graph.errors import Problem
from desktop.graph.flow_diff import FlowDiff, edge_key
from desktop.graph.flow_diff_text import item_notes
from desktop.ui.clip import clipped
from desktop.ui.editor import Editor
from desktop.ui.inspector_fields import (
    DOC_SECTIONS,
    EDGE_SECTIONS,
    NODE_SECTIONS,
    Field,
    field_for_location,
    from_text,
    get_path,
    set_path,
    shown_text,
    to_text,
)
from desktop.ui.inspector_subflow import SubflowSection
from desktop.ui.read_only import READ_ONLY_NOTE, lock_field
from desktop.ui.roles_cache import roles
from desktop.ui.scroll_safe import ScrollSafeCombo
from desktop.wording import plural


class _TextBox(QPlainTextEdit):
    committed = Signal()

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.committed.emit()


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    msg = err.get("msg", "invalid value")
    if err.get("type") == "string_pattern_mismatch":
        msg = "use letters, digits, '-', '_' or '.', starting with a letter"
    return msg.removeprefix("Value error, ")


# what an agent node has and a subflow node has not: the node's other sections, and these
AGENT_ONLY = (("node", "roleTemplate"), ("node", "provider"))
TITLE_CHARS = 60
"""The most of a name the title shows: two or three lines in the panel, never a page."""


class Inspector(QScrollArea):
    """Shows one form at a time: workflow, node, edge, or a multi-selection summary."""

    flowChangeRequested = Signal(str)  # the subflow node whose file is to be chosen again
    subflowOpenRequested = Signal(str)  # the subflow node whose inside is to be shown

    def __init__(self, editor: Editor, parent: QWidget | None = None):
        super().__init__(parent)
        self.editor = editor
        self.model = editor.model
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        body = QWidget()
        self.layout_ = QVBoxLayout(body)
        self.layout_.setContentsMargins(12, 10, 12, 12)
        self.title = QLabel()
        self.title.setProperty("role", "title")
        self.title.setWordWrap(True)  # a long name wraps: it never widens the panel
        self.subtitle = QLabel()
        self.subtitle.setProperty("role", "muted")
        self.subtitle.setWordWrap(True)
        self.read_only_note = QLabel(READ_ONLY_NOTE)
        self.read_only_note.setProperty("role", "muted")
        self.read_only_note.setWordWrap(True)
        self.read_only_note.hide()
        self.read_only = False  # a run's graph: the fields show, and take no edit
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.RichText)
        self.compare_header = QLabel()
        self.compare_header.setProperty("role", "section")
        self.compare_lines = QLabel()
        self.compare_lines.setWordWrap(True)
        self.compare_lines.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.compare: tuple[FlowDiff, str] | None = None  # the diff shown, the other's name
        for w in (self.title, self.subtitle, self.read_only_note, self.notes,
                  self.compare_header,
                  self.compare_lines):
            self.layout_.addWidget(w)
        self.widgets: dict[tuple[str, ...], tuple[Field, QWidget, QLabel]] = {}
        self.rows: dict[tuple[str, ...], tuple[QFormLayout, QLabel]] = {}
        self.sections: dict[str, QWidget] = {}  # the node page's, by title
        self.subflow = SubflowSection()
        self.subflow.changeClicked.connect(lambda: self.flowChangeRequested.emit(self.target))
        self.subflow.openClicked.connect(lambda: self.subflowOpenRequested.emit(self.target))
        self.pages = {name: self._build_page(sections) for name, sections in (
            ("doc", DOC_SECTIONS), ("node", NODE_SECTIONS), ("edge", EDGE_SECTIONS))}
        self.layout_.addStretch(1)
        self.setWidget(body)
        self.kind = "doc"
        self.target: str | None = None
        self.problems: list[Problem] = []
        self.run_modes: dict[str, str] | None = None  # the open run's, while it runs
        m = self.model
        for sig in (m.nodeChanged, m.edgeChanged, m.metaChanged, m.documentReset,
                    m.nodeRemoved, m.edgeRemoved):
            sig.connect(self._on_model_changed)
        self.show_selection([], [])

    # ---------------------------------------------------------------- building
    def _build_page(self, sections) -> QWidget:
        page = QWidget()
        outer = QVBoxLayout(page)
        outer.setContentsMargins(0, 0, 0, 0)
        for title, fields in sections:
            section = QWidget()
            column = QVBoxLayout(section)
            column.setContentsMargins(0, 0, 0, 0)
            header = QLabel(title.upper())
            header.setProperty("role", "section")
            column.addWidget(header)
            form = QFormLayout()
            form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            form.setVerticalSpacing(6)
            for f in fields:
                widget = self._make_widget(f)
                error = QLabel()
                error.setProperty("role", "error")
                error.setWordWrap(True)
                error.hide()
                box = QVBoxLayout()
                box.setSpacing(2)
                box.addWidget(widget)
                box.addWidget(error)
                label = QLabel(f.label)
                label.setToolTip(f.tip)
                form.addRow(label, box)
                self.widgets[f.path] = (f, widget, error)
                self.rows[f.path] = (form, label)
            column.addLayout(form)
            outer.addWidget(section)
            if sections is NODE_SECTIONS:
                self.sections[title] = section
                if len(self.sections) == 1:  # a subflow's file comes after its name
                    outer.addWidget(self.subflow)
        self.layout_.addWidget(page)
        return page

    def _make_widget(self, f: Field) -> QWidget:
        if f.kind == "check":
            w = QCheckBox()
            w.clicked.connect(lambda _=False, f=f: self._commit(f))
        elif f.kind == "combo":
            w = ScrollSafeCombo()
            w.addItems(list(f.options) if f.options else sorted(roles()))
            w.setEditable(not f.options)  # roles: any name, the validator checks it
            w.activated.connect(lambda _=0, f=f: self._commit(f))
            if w.isEditable():
                w.lineEdit().editingFinished.connect(lambda f=f: self._commit(f))
        elif f.kind == "multiline":
            w = _TextBox()
            w.setPlaceholderText(f.placeholder)
            w.setFixedHeight(96)
            w.setTabChangesFocus(True)
            w.committed.connect(lambda f=f: self._commit(f))
        else:
            w = QLineEdit()
            w.setPlaceholderText(f.placeholder)
            w.editingFinished.connect(lambda f=f: self._commit(f))
        w.setToolTip(f.tip)
        w.setObjectName("field_" + "_".join(f.path))
        return w

    # ---------------------------------------------------------------- showing
    def show_selection(self, node_ids: list[str], edge_keys: list[str]) -> None:
        if len(node_ids) == 1 and not edge_keys:
            self.kind, self.target = "node", node_ids[0]
        elif len(edge_keys) == 1 and not node_ids:
            self.kind, self.target = "edge", edge_keys[0]
        elif node_ids or edge_keys:
            self.kind, self.target = "multi", None
            self._multi = (len(node_ids), len(edge_keys))
        else:
            self.kind, self.target = "doc", None
        self.reload()

    def set_problems(self, problems: list[Problem]) -> None:
        self.problems = problems
        self.reload()

    def set_compare(self, diff: FlowDiff | None, other: str = "") -> None:
        """List how the selected item differs from workflow ``other`` (None: stop)."""
        self.compare = (diff, other) if diff is not None else None
        self._show_compare()

    def _show_compare(self) -> None:
        shown = self.compare is not None and self.kind != "multi"
        self.compare_header.setVisible(shown)
        self.compare_lines.setVisible(shown)
        if not shown:
            return
        diff, other = self.compare
        target = self.target
        if self.kind == "edge":
            index = self.model.edge_index(target)
            target = edge_key(index, self.model.edge(target))
        self.compare_header.setText(f"COMPARED WITH {other}")
        self.compare_lines.setText("\n".join(item_notes(diff, self.kind, target, other)))

    def _on_model_changed(self, *_: object) -> None:
        if self.kind == "node" and not self.model.has_node(self.target):
            self.kind, self.target = "doc", None
        if self.kind == "edge" and self.model.edge(self.target) is None:
            self.kind, self.target = "doc", None
        self.reload()

    def data(self) -> dict:
        """The values the current form shows, keyed like the field paths."""
        if self.kind == "node":
            node = self.model.node(self.target)
            d = node.model_dump(mode="json", by_alias=True)
            role = roles().get(node.role_template)
            if d.get("capabilities") is None:
                caps = role.capabilities if role else Capabilities()
                d["capabilities"] = caps.model_dump(mode="json", by_alias=True)
            if d.get("permissions") is None:
                d["permissions"] = Permissions().model_dump(mode="json", by_alias=True)
            cfg = self.model.config(self.target) or NodeConfig()
            shown = cfg.model_dump(mode="json", by_alias=True)
            if shown.get("sandbox") is None:  # show what a sandbox would start with
                shown["sandbox"] = Sandbox().model_dump(mode="json", by_alias=True)
            return {"node": d, "config": shown}
        if self.kind == "edge":
            return {"edge": self.model.edge(self.target).model_dump(mode="json", by_alias=True)}
        doc = self.model.doc
        return {"doc": {"name": doc.name, "description": doc.description, "task": doc.task,
                        "mode": str(doc.mode), "globalMode": str(doc.global_mode),
                        "executor": executor_json(doc.executor), "workspace": doc.workspace,
                        "worktreeSetup": (doc.worktree_setup or WorktreeSetup()).model_dump(
                            mode="json", by_alias=True)}}

    def reload(self) -> None:
        for name, page in self.pages.items():
            page.setVisible(name == self.kind)
        if self.kind == "multi":
            n, e = self._multi
            self.title.setText("Selection")
            self.subtitle.setText(f"{plural(n, 'node')} and {plural(e, 'edge')} selected. "
                                  "Align, distribute, "
                                  "copy or delete them from the Arrange and Edit menus.")
            self.notes.hide()
            self._show_compare()
            return
        data = self.data()
        for path, (f, widget, error) in self.widgets.items():
            if path[0] in data:
                self._put(f, widget, get_path(data, path))
                self._clear(widget, error)
        self._titles()
        self._show_subflow()
        self._show_problems()
        self._show_run_modes()
        self._show_compare()

    def set_read_only(self, on: bool) -> None:
        """Show every field's value without taking edits (a run's graph), or take them."""
        self.read_only = on
        self.read_only_note.setVisible(on)
        for _f, widget, _error in self.widgets.values():
            lock_field(widget, on)
        self.subflow.change.setVisible(not on)
        self.reload()

    def show_run_modes(self, modes: dict[str, str] | None) -> None:
        """While a run of this window runs, its modes are the ones in force: show those
        (read-only; the run toolbar switches them) instead of the workflow's defaults."""
        if modes != self.run_modes:
            self.run_modes = modes
            if self.kind == "doc":
                self.reload()

    def _show_run_modes(self) -> None:
        doc = self.model.doc
        defaults = {"mode": str(doc.mode), "globalMode": str(doc.global_mode)}
        for key, default in defaults.items():
            f, widget, _error = self.widgets[("doc", key)]
            running = self.run_modes is not None and key in self.run_modes
            if running:
                self._put(f, widget, self.run_modes[key])
            widget.setEnabled(not running and not self.read_only)
            if running and self.kind == "doc":
                self.subtitle.setText("Nothing selected: these are the workflow's own "
                                      "settings. Mode and global mode show the open run's; "
                                      "switch them in the run toolbar.")
            widget.setToolTip(
                f"The open run's {f.label.lower()}: switch it in the run toolbar. New runs "
                f"start in the workflow's own: {default}." if running else f.tip)

    def _show_subflow(self) -> None:
        """A subflow node: its file in place of the agent's sections and fields."""
        node = self.model.node(self.target) if self.kind == "node" else None
        flow = node.flow if node is not None and node.kind == "subflow" else None
        self.subflow.setVisible(flow is not None)
        self.subflow.show_flow(flow or "")
        for index, section in enumerate(self.sections.values()):
            section.setVisible(flow is None or index == 0)
        for path in AGENT_ONLY:
            form, label = self.rows[path]
            form.setRowVisible(label, flow is None)

    def _set_title(self, text: str) -> None:
        """The page's title, cut to a few lines (the tooltip has more, the fields all)."""
        shown = clipped(text, TITLE_CHARS)
        self.title.setText(shown)
        self.title.setToolTip(clipped(text) if shown != text else "")

    def _titles(self) -> None:
        if self.kind == "node":
            node = self.model.node(self.target)
            self._set_title(node.label or node.id)
            role = roles().get(node.role_template)
            self.subtitle.setText(
                "A subflow: another workflow file run as this node's one step."
                if node.kind == "subflow" else role.description if role
                else node.role_template)
        elif self.kind == "edge":
            e = self.model.edge(self.target)
            self._set_title(f"{e.from_}  →  {e.to}")
            self.subtitle.setText("Report edges carry a node's result back; handoff edges "
                                  "pass the work on.")
        else:
            self._set_title(self.model.doc.name or "Workflow")
            self.subtitle.setText("Nothing selected: these are the workflow's own settings.")

    def _show_problems(self) -> None:
        mine = [p for p in self.problems if self._concerns(p)]
        lines = []
        for p in mine:
            color = "#d93f3f" if p.is_error else "#d18b0f"
            lines.append(f"<span style='color:{color}'>● {p.message}</span>"
                         + (f"<br><span style='color:gray'>{p.hint}</span>" if p.hint else ""))
            path = field_for_location(p.location)
            if path in self.widgets:
                error = self.widgets[path][2]
                error.setText(p.message)
                error.show()
        self.notes.setText("<br>".join(lines))
        self.notes.setVisible(bool(lines))

    def _concerns(self, p: Problem) -> bool:
        doc = self.model.doc
        if self.kind == "node":
            index = self.model.node_index(self.target)
            return (p.location.startswith(f"nodes[{index}]")
                    or p.location.startswith(f"nodeConfigs.{self.target}"))
        if self.kind == "edge":
            return p.location.startswith(f"edges[{self.model.edge_index(self.target)}]")
        return not (p.location.startswith(("nodes[", "edges[", "nodeConfigs."))) and bool(doc)

    @staticmethod
    def _put(f: Field, widget: QWidget, value) -> None:
        widget.blockSignals(True)
        if isinstance(widget, QCheckBox):
            widget.setChecked(bool(value))
        elif isinstance(widget, QComboBox):
            text = to_text(value)
            if widget.findText(text) < 0 and text:
                widget.addItem(text)
            widget.setCurrentText(text)
        elif isinstance(widget, QPlainTextEdit):
            if widget.toPlainText() != (value or ""):
                widget.setPlainText(value or "")
        else:
            widget.setText(shown_text(f.kind, value))
            widget.setCursorPosition(0)
        widget.blockSignals(False)

    # ---------------------------------------------------------------- committing
    def _read(self, f: Field, widget: QWidget):
        if isinstance(widget, QCheckBox):
            return widget.isChecked()
        if isinstance(widget, QComboBox):
            return widget.currentText().strip()
        if isinstance(widget, QPlainTextEdit):
            return widget.toPlainText()
        return from_text(f.kind, widget.text())

    @staticmethod
    def _clear(widget: QWidget, error: QLabel) -> None:
        """No error on this field: its message hidden and its red outline gone."""
        error.hide()
        widget.setProperty("invalid", False)
        widget.style().polish(widget)  # the style sheet reads the property on polish

    def _fail(self, f: Field, message: str) -> None:
        _, widget, error = self.widgets[f.path]
        error.setText(message)
        error.show()
        widget.setProperty("invalid", True)
        widget.style().polish(widget)

    def _commit(self, f: Field) -> None:
        if self.read_only:
            return
        if f.path[0] != self.kind and not (self.kind == "node" and f.path[0] == "config"):
            return
        _, widget, error = self.widgets[f.path]
        try:
            value = self._read(f, widget)
        except ValueError as exc:
            self._fail(f, str(exc))
            return
        data = self.data()
        if get_path(data, f.path) == value:
            # put back as it was: nothing is applied (no reload), so the mark goes here
            self._clear(widget, error)
            return
        try:
            self._apply(f, data, value)
        except ValidationError as exc:
            self._fail(f, _first_error(exc))
        except ValueError as exc:
            self._fail(f, str(exc))

    def _apply(self, f: Field, data: dict, value) -> None:
        if f.path[1:2] == ("executor",):
            value = self._executor_value(f, data, value)
            f = Field(f.path[:2], f.label)
        if self.kind == "doc":
            if f.path[1] == "worktreeSetup":  # one of its fields: the setup as a whole
                shown = {**data["doc"]["worktreeSetup"], f.path[2]: value}
                setup = WorktreeSetup.model_validate(shown)
                value = None if setup.empty else setup
            key = {"globalMode": "global_mode",
                   "worktreeSetup": "worktree_setup"}.get(f.path[1], f.path[1])
            self.editor.set_meta(**{key: value})
            return
        if self.kind == "edge":
            d = copy.deepcopy(data["edge"])
            set_path({"edge": d}, f.path, value)
            self.editor.edit_edge(self.target, WorkflowEdge.model_validate(d))
            return
        if f.path == ("node", "id"):
            self._rename(value)
            return
        node = self.model.node(self.target)
        node_data = node.model_dump(mode="json", by_alias=True)
        if f.path[0] == "node":
            if len(f.path) == 3:  # capabilities / permissions: take the shown set as a whole
                node_data[f.path[1]] = copy.deepcopy(data["node"][f.path[1]])
                node_data[f.path[1]][f.path[2]] = value
            else:
                node_data[f.path[1]] = value
        new_node = WorkflowNode.model_validate(node_data)
        config = self.model.config(self.target)
        if f.path[0] == "config":
            cfg_data = copy.deepcopy(data["config"])
            if f.path[1] != "sandbox" and (config is None or config.sandbox is None):
                cfg_data["sandbox"] = None  # the defaults shown are not written back
            set_path({"config": cfg_data}, f.path, value)
            config = NodeConfig.model_validate(cfg_data)
            if self.model.config(self.target) is None and config == NodeConfig():
                config = None
        self.editor.edit_node(new_node, config, f"Edit {f.label.lower()} of {self.target}")

    @staticmethod
    def _executor_value(f: Field, data: dict, value):
        """The whole executor after editing one of its fields: a new address keeps the
        Ray settings; a resource needs a Ray executor to belong to."""
        current = get_path(data, f.path[:2])
        ray = current if isinstance(current, dict) and current.get("kind") == "ray" else None
        if len(f.path) == 2:
            if f.path[0] == "doc" and value is None:
                return "local"
            if ray is not None and isinstance(value, dict) and value.get("kind") == "ray":
                return {**ray, "address": value["address"]}
            return value
        if ray is None:
            raise ValueError("set Runs on to a Ray address (e.g. ray://head:10001) first")
        resources = {**(ray.get("resources") or {})}
        if value is None:
            resources.pop(f.path[-1], None)
        else:
            resources[f.path[-1]] = value
        return {**ray, "resources": resources}

    def _rename(self, new: str) -> None:
        if not re.fullmatch(SLUG_PATTERN, new):
            raise ValueError("use letters, digits, '-', '_' or '.', starting with a letter")
        if self.model.has_node(new):
            raise ValueError(f"another node already has the id {new!r}")
        old = self.target
        self.target = new
        self.editor.rename_node(old, new)
