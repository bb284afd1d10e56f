"""Choosing a subflow node's workflow file: adding a subflow node, changing its file.

``flow:`` is written as it is read (:func:`desktop.graph.subflows.flow_reference`):
relative to the open workflow's file once it has one, absolute before.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF

from desktop.graph.io import WORKFLOW_SUFFIX
from desktop.graph.subflows import flow_reference

if TYPE_CHECKING:
    from desktop.ui.window import EditorWindow


def flow_name(path: Path) -> str:
    """A subflow file's name without its suffix: ``review`` for ``review.flow.yaml``."""
    name = path.name
    for suffix in (WORKFLOW_SUFFIX, ".yaml", ".yml"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return path.stem


class SubflowPicker:
    """The editor window's subflow-file questions (``window.subflow_pick``)."""

    def __init__(self, window: EditorWindow) -> None:
        self.window = window

    def _ask(self, caption: str) -> Path | None:
        chosen = self.window.ask.open_path(caption)
        return Path(chosen) if chosen else None

    def _reference(self, chosen: Path) -> str | None:
        """``flow:`` for ``chosen``; None (with the reason in the status bar) when it is
        the open workflow itself, which cannot run inside itself."""
        own = self.window.file.path
        if own is not None and chosen.resolve() == Path(own).resolve():
            self.window.message("A workflow cannot run itself: choose another file.")
            return None
        return flow_reference(chosen, own)

    def add_at(self, scene_point: QPointF) -> str | None:
        """Ask for a workflow file and add a subflow node running it at ``scene_point``;
        the new node's id, or None when nothing was chosen."""
        if not self.window.editor.editable():  # refused before a file is asked for
            return None
        chosen = self._ask("Choose Subflow")
        flow = self._reference(chosen) if chosen is not None else None
        if chosen is None or flow is None:
            return None
        name = flow_name(chosen)
        label = name.replace("-", " ").replace("_", " ").capitalize()
        return self.window.editor.add_subflow(flow, label, (scene_point.x(), scene_point.y()),
                                              key=name)

    def change(self, node_id: str) -> None:
        """Ask for another workflow file for subflow node ``node_id``."""
        if not self.window.editor.editable():
            return
        chosen = self._ask("Change Subflow")
        flow = self._reference(chosen) if chosen is not None else None
        if flow is not None:
            self.window.editor.set_flow(node_id, flow)
