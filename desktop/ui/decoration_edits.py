"""Editing sticky notes and groups: every gesture becomes one undoable command.

Mixed into :class:`desktop.ui.editor.Editor`, so the canvas, the menus and the palette
share one implementation per edit, as for nodes.
"""

from __future__ import annotations

from desktop.graph.decorations import MIN_GROUP, MIN_NOTE, Box, NodeGroup, StickyNote
from desktop.ui import decoration_commands as dc
from desktop.ui.canvas.node_item import NODE_H, NODE_W
from desktop.ui.document import GROUP, NOTE
from desktop.wording import plural

GROUP_PAD = 40.0  # room around the nodes a new group frames
GROUP_TITLE = 40.0  # the title bar sits above the framed nodes (a grid step apart)
RESIZE_ID = 1003

Key = tuple[str, str]


class DecorationEdits:
    """Notes and groups for the Editor (which provides ``model``, ``push``, ``snap_to_grid``,
    ``selectRequested`` and ``positions``)."""

    def _snapped(self, x: float, y: float) -> tuple[float, float]:
        from desktop.ui.editor import snap

        return (snap(x), snap(y)) if self.snap_to_grid else (x, y)

    def add_note(self, at: tuple[float, float] = (0.0, 0.0), text: str = "") -> str:
        """A sticky note centred on ``at``; returns its id."""
        box = Box()
        x, y = self._snapped(at[0] - box.width / 2, at[1] - box.height / 2)
        note = StickyNote(id=self.model.unique_decoration_id("note"), text=text,
                          box=box.model_copy(update={"x": x, "y": y}))
        self.push(dc.AddDecoration(self.model, NOTE, note, "Add note"))
        return note.id

    def add_group(self, at: tuple[float, float] = (0.0, 0.0), around: list[str] = (),
                  label: str = "Group") -> str:
        """A group framing the nodes ``around`` (with room for its title), or centred on
        ``at`` when there are none; returns its id."""
        positions = self.positions(list(around))
        if positions:
            left = min(x for x, _ in positions.values()) - GROUP_PAD
            top = min(y for _, y in positions.values()) - GROUP_PAD - GROUP_TITLE
            right = max(x for x, _ in positions.values()) + NODE_W + GROUP_PAD
            bottom = max(y for _, y in positions.values()) + NODE_H + GROUP_PAD
            box = Box(x=left, y=top, width=right - left, height=bottom - top)
        else:
            box = NodeGroup(id="g").box
            x, y = self._snapped(at[0] - box.width / 2, at[1] - box.height / 2)
            box = box.model_copy(update={"x": x, "y": y})
        group = NodeGroup(id=self.model.unique_decoration_id("group"), label=label, box=box)
        self.push(dc.AddDecoration(self.model, GROUP, group, f"Add group {label}"))
        return group.id

    def _edit(self, kind: str, item_id: str, step: str, merge_id: int = -1, **update) -> None:
        item = self.model.decoration(kind, item_id)
        if item is None:
            return
        # validate through the model: a bad value raises here, before the document changes
        new = type(item).model_validate({**item.model_dump(), **update})
        if new != item:
            self.push(dc.EditDecoration(self.model, kind, new, step, merge_id))

    def set_note_text(self, note_id: str, text: str) -> None:
        self._edit(NOTE, note_id, "Edit note", text=text)

    def set_group_label(self, group_id: str, label: str) -> None:
        self._edit(GROUP, group_id, "Rename group", label=label)

    def set_decoration_color(self, kind: str, item_id: str, color: str | None) -> None:
        self._edit(kind, item_id, "Colour", color=color)

    def resize_decoration(self, kind: str, item_id: str, width: float, height: float,
                          mergeable: bool = True) -> None:
        """New size of a note or group (at least its minimum); a drag is one undo step."""
        least = MIN_NOTE if kind == NOTE else MIN_GROUP
        item = self.model.decoration(kind, item_id)
        if item is None:
            return
        box = item.box.model_copy(update={"width": max(least[0], width),
                                          "height": max(least[1], height)})
        self._edit(kind, item_id, "Resize", RESIZE_ID if mergeable else -1,
                   box=box.model_dump())

    def decoration_positions(self, keys: list[Key]) -> dict[Key, tuple[float, float]]:
        out = {}
        for kind, item_id in keys:
            item = self.model.decoration(kind, item_id)
            if item is not None:
                out[(kind, item_id)] = (item.box.x, item.box.y)
        return out

    def members(self, group_id: str) -> tuple[list[str], list[str]]:
        """The nodes and notes whose centres lie inside the group: they move with it."""
        group = self.model.decoration(GROUP, group_id)
        if group is None:
            return [], []
        b = group.box

        def inside(cx: float, cy: float) -> bool:
            return b.x <= cx <= b.x + b.width and b.y <= cy <= b.y + b.height

        nodes = [n.id for n in self.model.doc.nodes if n.position is not None
                 and inside(n.position.x + NODE_W / 2, n.position.y + NODE_H / 2)]
        notes = [n.id for n in self.model.doc.notes
                 if inside(n.box.x + n.box.width / 2, n.box.y + n.box.height / 2)]
        return nodes, notes

    def move_items(self, nodes: dict[str, tuple[float, float]],
                   decorations: dict[Key, tuple[float, float]], text: str = "Move",
                   mergeable: bool = True) -> None:
        """Move nodes and notes/groups to new top-left corners, as one undo step."""
        old_nodes = {k: v for k, v in self.positions(list(nodes)).items()}
        old_decos = self.decoration_positions(list(decorations))
        if old_nodes == nodes and old_decos == decorations:
            return
        self.push(dc.MoveItems(self.model, (old_nodes, nodes), (old_decos, decorations), text,
                               mergeable))

    def delete_decorations(self, keys: list[Key]) -> None:
        if keys:
            self.push(dc.RemoveDecorations(self.model, keys, f"Delete {plural(len(keys), 'item')}"))
