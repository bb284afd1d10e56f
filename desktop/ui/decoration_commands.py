"""Undoable edits of sticky notes and groups, and moves of nodes and notes together.

Like desktop/ui/undo.py, each command changes the document model only and keeps
private copies of what it puts in or takes out.
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from desktop.graph.decorations import NodeGroup, StickyNote
from desktop.ui.document import DocumentModel

MOVE_ITEMS_ID = 1002
Key = tuple[str, str]  # (kind, id)
Point = tuple[float, float]
Decoration = StickyNote | NodeGroup


def _copy(item: Decoration) -> Decoration:
    return item.model_copy(deep=True)


class AddDecoration(QUndoCommand):
    """Put a note or a group on the canvas."""

    def __init__(self, model: DocumentModel, kind: str, item: Decoration, text: str):
        super().__init__(text)
        self.model, self.kind, self.item = model, kind, _copy(item)

    def redo(self) -> None:
        self.model.add_decoration(self.kind, _copy(self.item))

    def undo(self) -> None:
        self.model.remove_decoration(self.kind, self.item.id)


class RemoveDecorations(QUndoCommand):
    """Take notes and groups away; undo puts each back where it was in its list."""

    def __init__(self, model: DocumentModel, keys: list[Key], text: str = "Delete"):
        super().__init__(text)
        self.model = model
        self.keys = [k for k in dict.fromkeys(keys) if model.decoration(*k) is not None]
        self.removed: list[tuple[str, int, Decoration]] = []

    def redo(self) -> None:
        self.removed = []
        for kind in ("note", "group"):
            ids = {i for k, i in self.keys if k == kind}
            for index in reversed(range(len(self.model.decorations(kind)))):
                item = self.model.decorations(kind)[index]
                if item.id in ids:
                    self.model.remove_decoration(kind, item.id)
                    self.removed.append((kind, index, _copy(item)))

    def undo(self) -> None:
        for kind, index, item in reversed(self.removed):
            self.model.add_decoration(kind, _copy(item), index=index)


class EditDecoration(QUndoCommand):
    """Replace a note or group by a new version (text, title, colour, size)."""

    def __init__(self, model: DocumentModel, kind: str, item: Decoration, text: str,
                 merge_id: int = -1):
        super().__init__(text)
        self.model, self.kind = model, kind
        self.old = _copy(model.decoration(kind, item.id))
        self.new = _copy(item)
        self._merge_id = merge_id

    def id(self) -> int:
        return self._merge_id

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, EditDecoration) or other.new.id != self.new.id:
            return False
        self.new = _copy(other.new)  # a resize drag: one step from its start to its end
        return True

    def redo(self) -> None:
        self.model.replace_decoration(self.kind, _copy(self.new))

    def undo(self) -> None:
        self.model.replace_decoration(self.kind, _copy(self.old))


class MoveItems(QUndoCommand):
    """Move nodes, notes and groups at once (a group drags what lies inside it).
    Consecutive moves of the same items merge into one step."""

    def __init__(self, model: DocumentModel, nodes: tuple[dict[str, Point], dict[str, Point]],
                 decorations: tuple[dict[Key, Point], dict[Key, Point]], text: str = "Move",
                 mergeable: bool = True):
        super().__init__(text)
        self.model = model
        self.old_nodes, self.new_nodes = dict(nodes[0]), dict(nodes[1])
        self.old_decos, self.new_decos = dict(decorations[0]), dict(decorations[1])
        self.mergeable = mergeable

    def id(self) -> int:
        return MOVE_ITEMS_ID if self.mergeable else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, MoveItems) or not other.mergeable:
            return False
        if set(other.new_nodes) != set(self.new_nodes) or \
                set(other.new_decos) != set(self.new_decos):
            return False
        self.new_nodes, self.new_decos = dict(other.new_nodes), dict(other.new_decos)
        return True

    def redo(self) -> None:
        self.model.move_nodes(self.new_nodes)
        self.model.move_decorations(self.new_decos)

    def undo(self) -> None:
        self.model.move_nodes(self.old_nodes)
        self.model.move_decorations(self.old_decos)
