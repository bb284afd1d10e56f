"""An observable wrapper of :class:`WorkflowDocument` for the Qt side.

The document stays the only truth. This wrapper is the one place that changes
it, and tells every view exactly what changed through fine-grained signals, so
the canvas updates one item instead of rebuilding. Edges have no mandatory id in
a document; the wrapper keys them with stable strings it keeps beside the list.
"""

from __future__ import annotations

import itertools

from PySide6.QtCore import QObject, Signal

from desktop.contract.state import NodeConfig
from desktop.graph.decorations import NodeGroup, StickyNote
from desktop.graph.document import (
    Position,
    WorkflowDocument,
    WorkflowEdge,
    WorkflowNode,
    new_edge_id,
)

NOTE = "note"
GROUP = "group"
META_FIELDS = ("name", "description", "task", "mode", "global_mode", "executor", "workspace",
               "worktree_setup", "extra")


class DocumentModel(QObject):
    """Holds one workflow document and emits a signal for every change made to it."""

    nodeAdded = Signal(str)
    nodeRemoved = Signal(str)
    nodeChanged = Signal(str)
    nodesMoved = Signal(list)
    edgeAdded = Signal(str)
    edgeRemoved = Signal(str)
    edgeChanged = Signal(str)
    decorationAdded = Signal(str, str)  # kind ("note" or "group"), id
    decorationRemoved = Signal(str, str)
    decorationChanged = Signal(str, str)
    metaChanged = Signal()
    documentReset = Signal()
    changed = Signal()

    def __init__(self, doc: WorkflowDocument | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._keys = itertools.count(1)
        self._doc = WorkflowDocument()
        self._nodes: dict[str, WorkflowNode] = {}
        self._edge_keys: list[str] = []
        self._edges: dict[str, WorkflowEdge] = {}
        self._set(doc or WorkflowDocument())

    # ------------------------------------------------------------ reading
    @property
    def doc(self) -> WorkflowDocument:
        """The live document. Read it; change it only through this model."""
        return self._doc

    def snapshot(self) -> WorkflowDocument:
        """A deep copy of the document as it is now."""
        return self._doc.model_copy(deep=True)

    def node(self, node_id: str) -> WorkflowNode | None:
        return self._nodes.get(node_id)

    def node_ids(self) -> list[str]:
        return [n.id for n in self._doc.nodes]

    def has_node(self, node_id: str) -> bool:
        return node_id in self._nodes

    def config(self, node_id: str) -> NodeConfig | None:
        """The node's own config, or None when it has none."""
        return self._doc.node_configs.get(node_id)

    def edge(self, key: str) -> WorkflowEdge | None:
        return self._edges.get(key)

    def edge_keys(self) -> list[str]:
        return list(self._edge_keys)

    def edge_index(self, key: str) -> int:
        return self._edge_keys.index(key)

    def config_order(self) -> list[str]:
        return list(self._doc.node_configs)

    def restore_config_order(self, order: list[str]) -> None:
        """Put node configs back in ``order`` (undo keeps files byte-identical)."""
        configs = self._doc.node_configs
        rank = {k: i for i, k in enumerate(order)}
        items = sorted(configs.items(), key=lambda kv: rank.get(kv[0], len(rank)))
        configs.clear()
        configs.update(items)

    def edges_of(self, node_id: str) -> list[str]:
        """Keys of the edges that start or end at ``node_id``, in document order."""
        return [k for k in self._edge_keys
                if self._edges[k].from_ == node_id or self._edges[k].to == node_id]

    def node_index(self, node_id: str) -> int:
        return next(i for i, n in enumerate(self._doc.nodes) if n.id == node_id)

    def unique_id(self, base: str) -> str:
        """A node id like ``base`` that no node has yet (``base``, ``base-2``, ...)."""
        base = base if base and base[0].isalpha() else f"n{base}"
        if base not in self._nodes:
            return base
        stem = base.rsplit("-", 1)[0] if base.rsplit("-", 1)[-1].isdigit() else base
        for i in itertools.count(2):
            candidate = f"{stem}-{i}"
            if candidate not in self._nodes:
                return candidate
        raise AssertionError("unreachable")

    # ------------------------------------------------------------ changing
    def reset(self, doc: WorkflowDocument, edge_keys: list[str] | None = None) -> None:
        """Replace the whole document (open, revert, reload, import)."""
        self._set(doc, edge_keys)
        self.documentReset.emit()
        self.changed.emit()

    def add_node(self, node: WorkflowNode, config: NodeConfig | None = None,
                 index: int | None = None) -> None:
        if node.id in self._nodes:
            raise ValueError(f"a node with id {node.id!r} already exists")
        nodes = self._doc.nodes
        nodes.insert(len(nodes) if index is None else index, node)
        self._nodes[node.id] = node
        if config is not None:
            self._doc.node_configs[node.id] = config
        self.nodeAdded.emit(node.id)
        self.changed.emit()

    def remove_node(self, node_id: str) -> tuple[int, WorkflowNode, NodeConfig | None]:
        """Remove a node (its edges must be gone already); returns what undo needs."""
        index = self.node_index(node_id)
        node = self._doc.nodes.pop(index)
        del self._nodes[node_id]
        config = self._doc.node_configs.pop(node_id, None)
        self.nodeRemoved.emit(node_id)
        self.changed.emit()
        return index, node, config

    def replace_node(self, node_id: str, node: WorkflowNode,
                     config: NodeConfig | None) -> None:
        """Swap in a new version of a node and its config (same id)."""
        if node.id != node_id:
            raise ValueError("replace_node keeps the id; use rename_node to change it")
        index = self.node_index(node_id)
        self._doc.nodes[index] = node
        self._nodes[node_id] = node
        if config is None:
            self._doc.node_configs.pop(node_id, None)
        else:
            self._doc.node_configs[node_id] = config
        self.nodeChanged.emit(node_id)
        self.changed.emit()

    def rename_node(self, old: str, new: str) -> None:
        """Change a node's id, carrying its config and edges along."""
        if new in self._nodes:
            raise ValueError(f"a node with id {new!r} already exists")
        index = self.node_index(old)
        node = self._doc.nodes[index].model_copy(update={"id": new})
        WorkflowNode.model_validate(node.model_dump(by_alias=True))
        touching = self.edges_of(old)
        self._doc.nodes.pop(index)
        del self._nodes[old]
        configs = self._doc.node_configs
        if old in configs:  # same place in the mapping, new key
            items = [(new if k == old else k, v) for k, v in configs.items()]
            configs.clear()
            configs.update(items)
        self.nodeRemoved.emit(old)
        self._doc.nodes.insert(index, node)
        self._nodes[new] = node
        self.nodeAdded.emit(new)
        for key in touching:
            edge = self._edges[key]
            update = {}
            if edge.from_ == old:
                update["from_"] = new
            if edge.to == old:
                update["to"] = new
            self._put_edge(key, edge.model_copy(update=update))
            self.edgeChanged.emit(key)
        self.changed.emit()

    def move_nodes(self, positions: dict[str, tuple[float, float]]) -> None:
        """Set node positions; one ``nodesMoved`` signal for the whole batch."""
        moved = []
        for node_id, (x, y) in positions.items():
            node = self._nodes.get(node_id)
            if node is None:
                continue
            pos = node.position
            if pos is not None and pos.x == x and pos.y == y:
                continue
            # model_construct: positions are plain floats; skip per-field validation on drags
            node.__dict__["position"] = Position.model_construct(x=float(x), y=float(y))
            moved.append(node_id)
        if moved:
            self.nodesMoved.emit(moved)
            self.changed.emit()

    def add_edge(self, edge: WorkflowEdge, key: str | None = None,
                 index: int | None = None) -> str:
        key = key or self._new_key()
        if key in self._edges:
            raise ValueError(f"edge key {key!r} is taken")
        taken = {e.id for e in self._doc.edges}
        if edge.id is None or edge.id in taken:  # a new edge, or a pasted copy
            edge = edge.model_copy(update={"id": new_edge_id(taken, edge.from_, edge.to,
                                                             edge.type)})
        index = len(self._edge_keys) if index is None else index
        self._doc.edges.insert(index, edge)
        self._edge_keys.insert(index, key)
        self._edges[key] = edge
        self.edgeAdded.emit(key)
        self.changed.emit()
        return key

    def remove_edge(self, key: str) -> tuple[int, WorkflowEdge]:
        index = self._edge_keys.index(key)
        edge = self._doc.edges.pop(index)
        self._edge_keys.pop(index)
        del self._edges[key]
        self.edgeRemoved.emit(key)
        self.changed.emit()
        return index, edge

    def replace_edge(self, key: str, edge: WorkflowEdge) -> None:
        self._put_edge(key, edge)
        self.edgeChanged.emit(key)
        self.changed.emit()

    def set_meta(self, **fields: object) -> None:
        """Set document-level fields (:data:`META_FIELDS`)."""
        for name, value in fields.items():
            if name not in META_FIELDS:
                raise KeyError(name)
            setattr(self._doc, name, value)
        self.metaChanged.emit()
        self.changed.emit()

    # ------------------------------------------------------------ notes and groups
    def decorations(self, kind: str) -> list[StickyNote] | list[NodeGroup]:
        """The document's notes (``kind`` "note") or groups ("group"), in order."""
        if kind == NOTE:
            return self._doc.notes
        if kind == GROUP:
            return self._doc.groups
        raise KeyError(kind)

    def decoration(self, kind: str, item_id: str) -> StickyNote | NodeGroup | None:
        return next((d for d in self.decorations(kind) if d.id == item_id), None)

    def unique_decoration_id(self, base: str) -> str:
        """An id like ``base`` that no note or group has yet (``note-1``, ``note-2``, ...)."""
        taken = {d.id for d in (*self._doc.notes, *self._doc.groups)}
        for i in itertools.count(1):
            candidate = f"{base}-{i}"
            if candidate not in taken:
                return candidate
        raise AssertionError("unreachable")

    def add_decoration(self, kind: str, item: StickyNote | NodeGroup,
                       index: int | None = None) -> None:
        if self.decoration(NOTE, item.id) or self.decoration(GROUP, item.id):
            raise ValueError(f"a note or group with id {item.id!r} already exists")
        items = self.decorations(kind)
        items.insert(len(items) if index is None else index, item)
        self.decorationAdded.emit(kind, item.id)
        self.changed.emit()

    def remove_decoration(self, kind: str, item_id: str) -> tuple[int, StickyNote | NodeGroup]:
        items = self.decorations(kind)
        index = next(i for i, d in enumerate(items) if d.id == item_id)
        item = items.pop(index)
        self.decorationRemoved.emit(kind, item_id)
        self.changed.emit()
        return index, item

    def replace_decoration(self, kind: str, item: StickyNote | NodeGroup) -> None:
        """Swap in a new version of a note or group (same id)."""
        items = self.decorations(kind)
        index = next(i for i, d in enumerate(items) if d.id == item.id)
        items[index] = item
        self.decorationChanged.emit(kind, item.id)
        self.changed.emit()

    def move_decorations(self, positions: dict[tuple[str, str], tuple[float, float]]) -> None:
        """Set the top-left corners of notes and groups, keyed by (kind, id)."""
        moved = []
        for (kind, item_id), (x, y) in positions.items():
            item = self.decoration(kind, item_id)
            if item is None or (item.box.x == x and item.box.y == y):
                continue
            # plain floats from a drag: skip per-field validation, as move_nodes does
            item.__dict__["box"] = item.box.model_copy(update={"x": float(x), "y": float(y)})
            moved.append((kind, item_id))
        for kind, item_id in moved:
            self.decorationChanged.emit(kind, item_id)
        if moved:
            self.changed.emit()

    # ------------------------------------------------------------ internals
    def _put_edge(self, key: str, edge: WorkflowEdge) -> None:
        index = self._edge_keys.index(key)
        self._doc.edges[index] = edge
        self._edges[key] = edge

    def _new_key(self) -> str:
        return f"e{next(self._keys)}"

    def _set(self, doc: WorkflowDocument, edge_keys: list[str] | None = None) -> None:
        self._doc = doc
        self._nodes = {n.id: n for n in doc.nodes}
        if edge_keys is None or len(edge_keys) != len(doc.edges):
            edge_keys = [self._new_key() for _ in doc.edges]
        self._edge_keys = list(edge_keys)
        self._edges = dict(zip(self._edge_keys, doc.edges, strict=True))
