"""The workflow file a command was given: refused when empty, told apart from a folder,
and loaded with its problems printed on failure."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.graph.document import WorkflowDocument


def given_workflow(value: str) -> str:
    """The argparse type of a workflow FILE argument: an empty one (an unset shell
    variable, ``validate "$FLOW"``) would be read as the current folder and reported with
    no name, so it is refused as a usage error."""
    if not value.strip():
        raise argparse.ArgumentTypeError("is empty; give the path of a *.flow.yaml file")
    return value


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
    # imported here: `run` takes given_workflow from this module and loads the file later
    from desktop.graph.errors import WorkflowLoadError
    from desktop.graph.io import load_workflow

    try:
        return load_workflow(path)
    except WorkflowLoadError as exc:
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
        return None


def say_if_invalid(command: str, path: str, doc: WorkflowDocument) -> None:
    """A warning on stderr when ``doc`` has errors ``validate`` would fail it for: the
    command still does its work on the workflow as it is (a diagram of a broken graph, a
    layout of one being mended), but says it is not one that runs."""
    from desktop.graph.validate import validate
    from desktop.wording import plural

    errors = [p for p in validate(doc, path) if p.is_error]
    if errors:
        print(f"warning: {command}: {path} has {plural(len(errors), 'error')} and would "
              f"not run (the first: {errors[0]}); `agent-canvas validate {path}` lists them",
              file=sys.stderr)

