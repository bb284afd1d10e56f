"""`agent-canvas validate FILE...`: check workflow files and report every problem."""

import argparse
import sys

from desktop.cli.workflow_arg import given_workflow
from desktop.graph.validate import check_file
from desktop.wording import plural


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `validate` subcommand."""
    p = sub.add_parser(
        "validate", help="check workflow files (exit 0 valid, 2 invalid)",
        description="Check *.flow.yaml workflow files. Problems go to stderr; warnings "
                    "are shown but do not fail the check.")
    p.add_argument("files", nargs="+", metavar="FILE", type=given_workflow,
                   help="workflow files to check")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Validate each file; 0 when all are valid, 2 when any has an error."""
    failed = False
    for path in args.files:
        doc, problems = check_file(path)
        errors = [p for p in problems if p.is_error]
        warnings = [p for p in problems if not p.is_error]
        for problem in errors + warnings:
            print(str(problem), file=sys.stderr)
        if errors or doc is None:
            failed = True
            print(f"{path}: INVALID ({plural(len(errors), 'error')}, "
                  f"{plural(len(warnings), 'warning')})",
                  file=sys.stderr)
            continue
        note = f", {plural(len(warnings), 'warning')}" if warnings else ""
        print(f"{path}: OK ({plural(len(doc.nodes), 'node')}, "
              f"{plural(len(doc.edges), 'edge')}{note})")
    return 2 if failed else 0
