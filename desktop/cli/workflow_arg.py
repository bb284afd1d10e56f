"""Loading the workflow a command was given, with its problems printed on failure."""

import sys

from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import load_workflow


def load_or_report(path: str) -> WorkflowDocument | None:
    """The document at ``path``, or None after printing every load problem on stderr."""
    try:
        return load_workflow(path)
    except WorkflowLoadError as exc:
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
        return None
