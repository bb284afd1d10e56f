"""`agent-canvas diff OLD NEW [--json]`: what one workflow adds, removes and changes
relative to another, layout left out, and inside the workflows their subflow nodes run
(read relative to each side's file, as ``validate`` reads them). Exit 0 when the same, 1
when they differ, 2 when a file, a subflow's too, cannot be read (like ``diff``).

Either side may be a past version in git, written as git writes it: ``REV:PATH`` (for
example ``HEAD~1:flows/review.flow.yaml``), read without touching the working tree."""

import argparse
import sys
from typing import TYPE_CHECKING

from desktop.cli.workflow_arg import given_workflow

if TYPE_CHECKING:
    from pathlib import Path

    from desktop.graph.document import WorkflowDocument
    from desktop.graph.subflow_diff import Side


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `diff` subcommand."""
    p = sub.add_parser(
        "diff", help="compare two workflows (exit 0 same, 1 different, 2 bad input)",
        description="List the nodes, edges and parameters NEW adds, removes or changes "
                    "relative to OLD, and inside the workflows their subflow nodes run. "
                    "Positions, notes and groups (layout) are left out.")
    p.add_argument("old", metavar="OLD", type=given_workflow,
                   help="the workflow to compare from (*.flow.yaml, or REV:PATH for a "
                        "version in git)")
    p.add_argument("new", metavar="NEW", type=given_workflow,
                   help="the workflow to compare with it (a file, or REV:PATH)")
    p.add_argument("--json", action="store_true", help="print the differences as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the differences; 0 same, 1 different, 2 when a file cannot be loaded."""
    import orjson

    from desktop.graph.flow_diff_text import diff_lines
    from desktop.graph.subflow_diff import diff_sides

    old = _load(args.old)
    new = _load(args.new)
    if old is None or new is None:
        return 2
    diff = diff_sides(old, new)
    if args.json:
        sys.stdout.write(orjson.dumps(diff.to_json(), option=orjson.OPT_INDENT_2).decode()
                         + "\n")
    else:
        for line in diff_lines(diff):
            print(line)
    return 0 if diff.same else 1


def _load(arg: str) -> "Side | None":
    """The workflow ``arg`` names, a file or ``REV:PATH`` when no file has that name, with
    the subflows it runs (from the same revision for ``REV:PATH``); None after printing
    every problem on stderr."""
    from pathlib import Path

    from desktop.cli.workflow_arg import load_or_report
    from desktop.graph.errors import WorkflowLoadError
    from desktop.graph.history import HistoryError, flow_at
    from desktop.graph.subflow_diff import read_from_disk, side_tree

    rev, colon, file = arg.partition(":")
    try:
        if not colon or not rev or not file or Path(arg).exists():
            doc = load_or_report(arg)
            return None if doc is None else side_tree(doc, arg, read_from_disk)
        return side_tree(flow_at(file, rev), file, lambda path: _read_at(path, rev),
                         name=arg)
    except WorkflowLoadError as exc:
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
    except HistoryError as exc:
        print(str(exc), file=sys.stderr)
    return None


def _read_at(path: "Path", rev: str) -> "WorkflowDocument":
    """A subflow file as it was at ``rev``, its history problem told as a load problem."""
    from desktop.graph.errors import Problem, WorkflowLoadError
    from desktop.graph.history import HistoryError, flow_at

    try:
        return flow_at(path, rev)
    except HistoryError as exc:
        raise WorkflowLoadError([Problem("", str(exc), file=f"{rev}:{path}")]) from None
