"""Workflow documents: YAML load/save, validation, layout and export.

``validate`` is not re-exported here: it would hide the ``validate`` submodule.
Use ``from desktop.graph.validate import validate``.
"""

from desktop.graph.document import WorkflowDocument, WorkflowEdge, WorkflowNode
from desktop.graph.errors import Problem, WorkflowLoadError
from desktop.graph.export import from_mermaid, to_dot, to_mermaid
from desktop.graph.io import dumps_workflow, load_workflow, loads_workflow, save_workflow
from desktop.graph.layout import auto_layout
from desktop.graph.validate import check_file

__all__ = [
    "Problem",
    "WorkflowDocument",
    "WorkflowEdge",
    "WorkflowLoadError",
    "WorkflowNode",
    "auto_layout",
    "check_file",
    "dumps_workflow",
    "from_mermaid",
    "load_workflow",
    "loads_workflow",
    "save_workflow",
    "to_dot",
    "to_mermaid",
]
