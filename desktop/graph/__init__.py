"""Workflow documents: YAML load/save, validation, layout and export.

The names below are imported on first use, so ``agent-canvas validate`` does not pay
for networkx (layout) or the exporters it never calls.

``validate`` is not re-exported here: it would hide the ``validate`` submodule.
Use ``from desktop.graph.validate import validate``.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.graph.document import WorkflowDocument, WorkflowEdge, WorkflowNode
    from desktop.graph.errors import Problem, WorkflowLoadError
    from desktop.graph.export import from_mermaid, to_dot, to_mermaid
    from desktop.graph.io import dumps_workflow, load_workflow, loads_workflow, save_workflow
    from desktop.graph.layout import auto_layout
    from desktop.graph.validate import check_file

_HOME = {
    "Problem": "errors",
    "WorkflowDocument": "document",
    "WorkflowEdge": "document",
    "WorkflowLoadError": "errors",
    "WorkflowNode": "document",
    "auto_layout": "layout",
    "check_file": "validate",
    "dumps_workflow": "io",
    "from_mermaid": "export",
    "load_workflow": "io",
    "loads_workflow": "io",
    "save_workflow": "io",
    "to_dot": "export",
    "to_mermaid": "export",
}
"""Public name -> the submodule defining it."""

__all__ = [
    "Problem", "WorkflowDocument", "WorkflowEdge", "WorkflowLoadError", "WorkflowNode",
    "auto_layout", "check_file", "dumps_workflow", "from_mermaid", "load_workflow",
    "loads_workflow", "save_workflow", "to_dot", "to_mermaid",
]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
