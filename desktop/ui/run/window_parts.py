"""The parts of a window the run panels use, handed to them by the window itself.

The editor window offers all of them; a bare window (a test's, say) offers only its
document. What a window leaves out the panels do without: no canvas overlay, a message
box instead of the problems panel, no undoable fix of a refused workflow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from desktop.ui.theme import LIGHT, Theme

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget

    from desktop.graph.document import WorkflowDocument
    from desktop.ui.canvas.scene import CanvasScene
    from desktop.ui.editor import Editor
    from desktop.ui.inspector import Inspector
    from desktop.ui.problems import ProblemsPanel


class AskBar(Protocol):
    """A bar above the canvas that asks with buttons (the editor window's InfoBar)."""

    def ask(self, text: str, choices: list[tuple[str, object]]) -> None: ...


def _no_document() -> WorkflowDocument | None:
    return None


def _no_path() -> Path | None:
    return None


def _light() -> Theme:
    return LIGHT


@dataclass
class WindowParts:
    """What of its window the run panels show, follow and change."""

    document: Callable[[], WorkflowDocument | None] = _no_document
    """The workflow as it is now (what Run starts)."""
    workflow_path: Callable[[], Path | None] = _no_path
    """The workflow's file, when it has one (relative workspaces resolve against it)."""
    theme: Callable[[], Theme] = _light
    editor: Editor | None = None
    """Undoable edits of the document: its modes, removing edges to missing nodes."""
    scene: CanvasScene | None = None
    inspector: Inspector | None = None
    problems: ProblemsPanel | None = None
    problems_dock: QDockWidget | None = None
    info: AskBar | None = None
    message: Callable[[str], None] | None = None
    """A short note in the status bar."""
    show_run: Callable[[Path, bool], object] | None = None
    """Where the window shows a run picked in Run history (with its own graph)."""
    follow_state: Callable[[dict | None], None] | None = None
    """Other views of the run's graph that follow its state (a subflow opened inside it)."""
    bring_up_run: Callable[[Path, str | None], object] | None = None
    """Show another run (its tab, or a new one) and open one of its requests there; a
    window without tabs cannot."""


__all__ = ["AskBar", "WindowParts"]
