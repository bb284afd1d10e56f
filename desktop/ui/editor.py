"""Editing operations on a workflow: each one becomes an undoable command.

No widgets here: the canvas, the inspector, the palette and the menus all call
these methods, so every gesture has exactly one implementation and one test.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from desktop.contract.enums import EdgeType
from desktop.contract.state import NodeConfig
from desktop.graph.document import (
    SLUG_PATTERN,
    Position,
    WorkflowDocument,
    WorkflowEdge,
    WorkflowNode,
)
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.gatekeeper import Graph, GraphChangeError, check_edge
from desktop.graph.io import dumps_workflow, loads_workflow
from desktop.ui import undo as c
from desktop.ui.canvas.node_item import NODE_H, NODE_W
from desktop.ui.decoration_edits import DecorationEdits
from desktop.ui.document import DocumentModel
from desktop.ui.roles_cache import role_title
from desktop.wording import plural

GRID = 20.0
LAYOUT_SCALE_X = 1.0  # graph.layout's spacing fits our node size
PASTE_OFFSET = 40.0
READ_ONLY = "this is a run's graph, as the run recorded it: it cannot be changed"


def snap(value: float, grid: float = GRID) -> float:
    return round(value / grid) * grid


class Editor(DecorationEdits, QObject):
    """The document model, its undo stack, and every edit a user can make."""

    selectRequested = Signal(list, list)  # node ids, edge keys the views should select
    refused = Signal()  # an edit was asked for while the document is read-only

    def __init__(self, doc: WorkflowDocument | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.model = DocumentModel(doc, self)
        self.undo_stack = QUndoStack(self)
        self.snap_to_grid = True
        self.read_only = False
        """No edit is made (a run's graph, shown as the run recorded it): every gesture,
        menu, field or paste that would change the document is refused."""

    def editable(self) -> bool:
        """Whether an edit may be made now; when not, says so (``refused``)."""
        if self.read_only:
            self.refused.emit()
            return False
        return True

    def push(self, command) -> None:
        # every edit comes through here: the one place a read-only document is kept as it is
        if self.editable():
            self.undo_stack.push(command)

    # ---------------------------------------------------------------- nodes
    def add_node(self, role: str = "implementer", provider: str = "scripted",
                 at: tuple[float, float] = (0.0, 0.0), centered: bool = True) -> str:
        """Add a node of ``role`` run by ``provider`` at scene point ``at``; returns its id."""
        x, y = at
        if centered:
            x, y = x - NODE_W / 2, y - NODE_H / 2
        if self.snap_to_grid:
            x, y = snap(x), snap(y)
        node_id = self.model.unique_id(role)
        node = WorkflowNode(id=node_id, label=self._unique_label(role_title(role)),
                            roleTemplate=role, provider=provider, position=Position(x=x, y=y),
                            entry=not self.model.doc.nodes)
        self.push(c.AddItems(self.model, [c.NodeBundle(node)], text=f"Add {node.label}"))
        self.selectRequested.emit([node_id], [])
        return node_id

    def add_subflow(self, flow: str, label: str, at: tuple[float, float] = (0.0, 0.0),
                    key: str = "subflow") -> str:
        """Add a subflow node running workflow file ``flow`` (as ``flow:`` says it) at
        scene point ``at``, its id like ``key``; returns its id."""
        x, y = at[0] - NODE_W / 2, at[1] - NODE_H / 2
        if self.snap_to_grid:
            x, y = snap(x), snap(y)
        node_id = self.model.unique_id(key if re.fullmatch(SLUG_PATTERN, key) else "subflow")
        node = WorkflowNode(id=node_id, label=self._unique_label(label), kind="subflow",
                            flow=flow, position=Position(x=x, y=y),
                            entry=not self.model.doc.nodes)
        self.push(c.AddItems(self.model, [c.NodeBundle(node)], text=f"Add {node.label}"))
        self.selectRequested.emit([node_id], [])
        return node_id

    def set_flow(self, node_id: str, flow: str) -> None:
        """Point subflow node ``node_id`` at another workflow file."""
        node = self.model.node(node_id)
        if node is not None and node.kind == "subflow" and node.flow != flow:
            self.edit_node(node.model_copy(update={"flow": flow}),
                           self.model.config(node_id), f"Change subflow of {node_id}")

    def _unique_label(self, base: str) -> str:
        labels = {n.label for n in self.model.doc.nodes}
        if base not in labels:
            return base
        i = 2
        while f"{base} {i}" in labels:
            i += 1
        return f"{base} {i}"

    def edit_node(self, node: WorkflowNode, config: NodeConfig | None,
                  text: str = "Edit node") -> None:
        current = self.model.node(node.id)
        if current == node and self.model.config(node.id) == config:
            return
        self.push(c.EditNode(self.model, node, config, text))

    def rename_node(self, old: str, new: str) -> None:
        if old != new:
            self.push(c.RenameNode(self.model, old, new))
            self.selectRequested.emit([new], [])

    def set_provider(self, node_id: str, provider: str) -> None:
        node = self.model.node(node_id)
        if node is not None and node.provider != provider:
            self.edit_node(node.model_copy(update={"provider": provider}),
                           self.model.config(node_id), f"Set provider of {node_id}")

    # ---------------------------------------------------------------- edges
    def connection_problem(self, src: str, dst: str,
                           edge_type: str = EdgeType.HANDOFF) -> str | None:
        """Why ``src -> dst`` cannot be drawn, or None when it can (the gatekeeper's
        reason, the one the API and agents get)."""
        if self.read_only:
            return READ_ONLY
        if not self.model.has_node(src) or not self.model.has_node(dst):
            return "both ends must be nodes"
        edges = (self.model.edge(key) for key in self.model.edges_of(src))
        graph = Graph.of(((src, None), (dst, None)),
                         ((e.from_, e.to, str(e.type)) for e in edges if e is not None))
        try:
            check_edge(graph, src, dst, str(edge_type))
        except GraphChangeError as exc:
            return str(exc)
        return None

    def connect(self, src: str, dst: str, edge_type: str = EdgeType.HANDOFF) -> str | None:
        """Add an edge; returns its key, or None when refused."""
        if self.connection_problem(src, dst, edge_type):
            return None
        edge = WorkflowEdge(**{"from": src}, to=dst, type=edge_type)
        cmd = c.AddItems(self.model, [], [edge], text=f"Connect {src} to {dst}")
        self.push(cmd)
        return cmd.edge_keys[0]

    def edit_edge(self, key: str, edge: WorkflowEdge) -> None:
        if self.model.edge(key) != edge:
            self.push(c.EditEdge(self.model, key, edge))

    # ---------------------------------------------------------------- selection edits
    def delete(self, node_ids: list[str], edge_keys: list[str],
               decorations: list[tuple[str, str]] = ()) -> None:
        """Delete nodes (with their edges), edges, and notes or groups: one undo step."""
        n = len(node_ids) + len(edge_keys) + len(decorations)
        if not n or not self.editable():  # before the macro: an empty one would still count
            return
        text = f"Delete {plural(n, 'item')}"
        self.undo_stack.beginMacro(text)
        if node_ids or edge_keys:
            self.push(c.RemoveItems(self.model, node_ids, edge_keys, text=text))
        self.delete_decorations(list(decorations))
        self.undo_stack.endMacro()

    def move(self, positions: dict[str, tuple[float, float]], text: str = "Move",
             mergeable: bool = True) -> None:
        """Move nodes to new top-left positions (one undo step per gesture)."""
        old = {}
        for node_id in positions:
            pos = self.model.node(node_id).position
            old[node_id] = (pos.x, pos.y) if pos else (0.0, 0.0)
        if old != positions:
            self.push(c.MoveNodes(self.model, old, positions, text, mergeable))

    def set_meta(self, **fields: object) -> None:
        changed = {k: v for k, v in fields.items() if getattr(self.model.doc, k) != v}
        if changed:
            self.push(c.SetMeta(self.model, **changed))

    def replace_document(self, doc: WorkflowDocument, text: str) -> None:
        self.push(c.ReplaceDocument(self.model, doc, text))

    # ---------------------------------------------------------------- clipboard
    def copy_text(self, node_ids: list[str]) -> str:
        """The selected nodes, their configs and the edges among them, as workflow YAML."""
        chosen = set(node_ids)
        doc = self.model.doc
        part = WorkflowDocument(
            name=doc.name,
            nodes=[n for n in doc.nodes if n.id in chosen],
            nodeConfigs={k: v for k, v in doc.node_configs.items() if k in chosen},
            edges=[e for e in doc.edges if e.from_ in chosen and e.to in chosen],
        )
        return dumps_workflow(part)

    def paste_text(self, text: str, at: tuple[float, float] | None = None) -> list[str]:
        """Add the nodes of workflow YAML ``text`` under fresh ids; returns the new ids."""
        try:
            part = loads_workflow(text, "<clipboard>")
        except WorkflowLoadError:
            return []
        if not part.nodes:
            return []
        taken = set(self.model.node_ids())
        renames: dict[str, str] = {}
        for node in part.nodes:
            new = node.id
            i = 2
            stem = node.id.rsplit("-", 1)[0] if node.id.rsplit("-", 1)[-1].isdigit() else node.id
            while new in taken:
                new = f"{stem}-{i}"
                i += 1
            taken.add(new)
            renames[node.id] = new
        xs = [n.position.x for n in part.nodes if n.position]
        ys = [n.position.y for n in part.nodes if n.position]
        left, top = (min(xs), min(ys)) if xs else (0.0, 0.0)
        if at is not None:
            dx, dy = at[0] - left, at[1] - top
        else:
            dx = dy = PASTE_OFFSET
        has_entry = self.model.doc.entry_node() is not None
        bundles = []
        for k, node in enumerate(part.nodes):
            pos = node.position or Position(x=left + k * 30, y=top + k * 30)
            x, y = pos.x + dx, pos.y + dy
            if self.snap_to_grid:
                x, y = snap(x), snap(y)
            copy = node.model_copy(update={
                "id": renames[node.id], "position": Position(x=x, y=y),
                "entry": node.entry and not has_entry})
            bundles.append(c.NodeBundle(copy, part.node_configs.get(node.id)))
        edges = [e.model_copy(update={"from_": renames[e.from_], "to": renames[e.to], "id": None})
                 for e in part.edges if e.from_ in renames and e.to in renames]
        self.push(c.AddItems(self.model, bundles, edges,
                             text=f"Paste {plural(len(bundles), 'node')}"))
        ids = [b.node.id for b in bundles]
        self.selectRequested.emit(ids, [])
        return ids

    def duplicate(self, node_ids: list[str]) -> list[str]:
        if not node_ids:
            return []
        return self.paste_text(self.copy_text(node_ids))

    # ---------------------------------------------------------------- arrange
    def positions(self, node_ids: list[str]) -> dict[str, tuple[float, float]]:
        out = {}
        for node_id in node_ids:
            pos = self.model.node(node_id).position
            out[node_id] = (pos.x, pos.y) if pos else (0.0, 0.0)
        return out

    def align(self, node_ids: list[str], how: str) -> None:
        """Line nodes up: left, right, top, bottom, hcenter or vcenter."""
        pos = self.positions(node_ids)
        if len(pos) < 2:
            return
        xs = [p[0] for p in pos.values()]
        ys = [p[1] for p in pos.values()]
        new = {}
        for node_id, (x, y) in pos.items():
            if how == "left":
                x = min(xs)
            elif how == "right":
                x = max(xs)
            elif how == "hcenter":
                x = (min(xs) + max(xs)) / 2
            elif how == "top":
                y = min(ys)
            elif how == "bottom":
                y = max(ys)
            elif how == "vcenter":
                y = (min(ys) + max(ys)) / 2
            new[node_id] = (x, y)
        self.move(new, f"Align {how}", mergeable=False)

    def distribute(self, node_ids: list[str], axis: str) -> None:
        """Space nodes evenly between the outermost two along ``axis`` ("x" or "y")."""
        pos = self.positions(node_ids)
        if len(pos) < 3:
            return
        i = 0 if axis == "x" else 1
        order = sorted(pos, key=lambda n: pos[n][i])
        first, last = pos[order[0]][i], pos[order[-1]][i]
        step = (last - first) / (len(order) - 1)
        new = {}
        for k, node_id in enumerate(order):
            p = list(pos[node_id])
            p[i] = first + k * step
            new[node_id] = (p[0], p[1])
        self.move(new, f"Distribute {'horizontally' if axis == 'x' else 'vertically'}",
                  mergeable=False)

    def auto_layout(self) -> None:
        """Lay every node out with desktop.graph.layout, as one undoable step."""
        from desktop.graph.layout import auto_layout

        if not self.model.doc.nodes:
            return
        laid = auto_layout(self.model.doc)
        new = {n.id: (snap(n.position.x * LAYOUT_SCALE_X), snap(n.position.y)) for n in laid.nodes}
        self.move(new, "Auto-layout", mergeable=False)


def fill_missing_positions(doc: WorkflowDocument) -> WorkflowDocument:
    """Give nodes without a position one from auto-layout (others keep theirs)."""
    if all(n.position is not None for n in doc.nodes):
        return doc
    from desktop.graph.layout import auto_layout

    laid = {n.id: n.position for n in auto_layout(doc).nodes}
    out = doc.model_copy(deep=True)
    for node in out.nodes:
        if node.position is None:
            p = laid[node.id]
            node.position = Position(x=snap(p.x * LAYOUT_SCALE_X), y=snap(p.y))
    return out
