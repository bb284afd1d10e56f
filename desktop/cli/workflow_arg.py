"""Loading the workflow a command was given, with its problems printed on failure."""

import sys
from pathlib import Path

from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import load_workflow


def not_a_file(path: Path) -> str | None:
    """Why ``path`` cannot be the workflow file a command runs, or None when it is a file:
    a folder is told as one, as ``validate`` tells it, not as missing."""
    if path.is_file():
        return None
    if path.is_dir():
        return f"{path}: is a folder, not a workflow file — give the path of a *.flow.yaml " \
               "file inside it"
    return f"{path}: no such workflow file"


def load_or_report(path: str) -> WorkflowDocument | None:
    """The document at ``path``, or None after printing every load problem on stderr."""
    try:
        return load_workflow(path)
    except WorkflowLoadError as exc:
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
        return None
