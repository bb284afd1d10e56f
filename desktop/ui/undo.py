"""Undoable edits. Each command changes the document model only; views follow its signals.

Commands keep private copies of what they put in or take out, so a later edit
of the live document can never change what undo restores.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QUndoCommand

from desktop.contract.state import NodeConfig
from desktop.graph.document import WorkflowDocument, WorkflowEdge, WorkflowNode
from desktop.ui.document import DocumentModel

MOVE_ID = 1001

Point = tuple[float, float]


def _copy(model):
    return None if model is None else model.model_copy(deep=True)


@dataclass
class NodeBundle:
    """A node with its config, as added by paste/duplicate or taken by delete."""

    node: WorkflowNode
    config: NodeConfig | None = None
    index: int | None = None


class AddItems(QUndoCommand):
    """Add nodes and edges (new node, paste, duplicate, connect)."""

    def __init__(self, model: DocumentModel, nodes: list[NodeBundle],
                 edges: list[WorkflowEdge] = (), text: str = "Add"):
        super().__init__(text)
        self.model = model
        self.nodes = [NodeBundle(_copy(b.node), _copy(b.config)) for b in nodes]
        self.edges = [_copy(e) for e in edges]
        self.edge_keys: list[str] = []

    def redo(self) -> None:
        for b in self.nodes:
            self.model.add_node(_copy(b.node), _copy(b.config))
        keys = self.edge_keys or [None] * len(self.edges)
        self.edge_keys = [self.model.add_edge(_copy(e), key=k)
                          for e, k in zip(self.edges, keys, strict=True)]

    def undo(self) -> None:
        for key in reversed(self.edge_keys):
            self.model.remove_edge(key)
        for b in reversed(self.nodes):
            self.model.remove_node(b.node.id)


class RemoveItems(QUndoCommand):
    """Delete nodes (with every edge touching them) and edges; undo puts all back in place."""

    def __init__(self, model: DocumentModel, node_ids: list[str], edge_keys: list[str],
                 text: str = "Delete"):
        super().__init__(text)
        self.model = model
        keys = set(edge_keys)
        for node_id in node_ids:
            keys.update(model.edges_of(node_id))
        self.edge_keys = sorted(keys, key=model.edge_index)
        self.node_ids = sorted(set(node_ids), key=model.node_index)
        self.removed_edges: list[tuple[str, int, WorkflowEdge]] = []
        self.removed_nodes: list[tuple[int, WorkflowNode, NodeConfig | None]] = []

    def redo(self) -> None:
        self.order = self.model.config_order()
        self.removed_edges = []
        for key in reversed(self.edge_keys):  # back to front keeps earlier indices valid
            index, edge = self.model.remove_edge(key)
            self.removed_edges.append((key, index, _copy(edge)))
        self.removed_nodes = []
        for node_id in reversed(self.node_ids):
            index, node, config = self.model.remove_node(node_id)
            self.removed_nodes.append((index, _copy(node), _copy(config)))

    def undo(self) -> None:
        for index, node, config in reversed(self.removed_nodes):
            self.model.add_node(_copy(node), _copy(config), index=index)
        for key, index, edge in reversed(self.removed_edges):
            self.model.add_edge(_copy(edge), key=key, index=index)
        self.model.restore_config_order(self.order)


class MoveNodes(QUndoCommand):
    """Move nodes. Consecutive moves of the same set of nodes merge into one step."""

    def __init__(self, model: DocumentModel, old: dict[str, Point], new: dict[str, Point],
                 text: str = "Move", mergeable: bool = True):
        super().__init__(text)
        self.model = model
        self.old = dict(old)
        self.new = dict(new)
        self.mergeable = mergeable

    def id(self) -> int:
        return MOVE_ID if self.mergeable else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, MoveNodes) or not other.mergeable:
            return False
        if set(other.new) != set(self.new):
            return False
        self.new = dict(other.new)
        return True

    def redo(self) -> None:
        self.model.move_nodes(self.new)

    def undo(self) -> None:
        self.model.move_nodes(self.old)


class EditNode(QUndoCommand):
    """Replace a node and its config by new versions (inspector edits, drops)."""

    def __init__(self, model: DocumentModel, node: WorkflowNode, config: NodeConfig | None,
                 text: str = "Edit node"):
        super().__init__(text)
        self.model = model
        self.node_id = node.id
        self.old = (_copy(model.node(node.id)), _copy(model.config(node.id)))
        self.new = (_copy(node), _copy(config))
        self.order = model.config_order()

    def redo(self) -> None:
        self.model.replace_node(self.node_id, _copy(self.new[0]), _copy(self.new[1]))

    def undo(self) -> None:
        self.model.replace_node(self.node_id, _copy(self.old[0]), _copy(self.old[1]))
        self.model.restore_config_order(self.order)


class RenameNode(QUndoCommand):
    """Change a node's id; its config and edges follow."""

    def __init__(self, model: DocumentModel, old: str, new: str):
        super().__init__(f"Rename {old} to {new}")
        self.model, self.old, self.new = model, old, new

    def redo(self) -> None:
        self.model.rename_node(self.old, self.new)

    def undo(self) -> None:
        self.model.rename_node(self.new, self.old)


class EditEdge(QUndoCommand):
    """Replace an edge by a new version (type, label, direction)."""

    def __init__(self, model: DocumentModel, key: str, edge: WorkflowEdge,
                 text: str = "Edit edge"):
        super().__init__(text)
        self.model, self.key = model, key
        self.old = _copy(model.edge(key))
        self.new = _copy(edge)

    def redo(self) -> None:
        self.model.replace_edge(self.key, _copy(self.new))

    def undo(self) -> None:
        self.model.replace_edge(self.key, _copy(self.old))


class SetMeta(QUndoCommand):
    """Change document-level fields (name, description, task, modes)."""

    def __init__(self, model: DocumentModel, text: str = "Edit workflow", **fields: object):
        super().__init__(text)
        self.model = model
        self.new = dict(fields)
        self.old = {k: getattr(model.doc, k) for k in fields}

    def redo(self) -> None:
        self.model.set_meta(**self.new)

    def undo(self) -> None:
        self.model.set_meta(**self.old)


class ReplaceDocument(QUndoCommand):
    """Swap the whole document (Mermaid import into the open window)."""

    def __init__(self, model: DocumentModel, doc: WorkflowDocument, text: str = "Replace"):
        super().__init__(text)
        self.model = model
        self.old = model.snapshot()
        self.old_keys = model.edge_keys()
        self.new = doc.model_copy(deep=True)
        self.new_keys: list[str] | None = None

    def redo(self) -> None:
        self.model.reset(self.new.model_copy(deep=True), self.new_keys)
        self.new_keys = self.model.edge_keys()

    def undo(self) -> None:
        self.model.reset(self.old.model_copy(deep=True), self.old_keys)
