"""`agent-canvas layout FILE [-o OUT]`: give every node a position."""

import argparse

from desktop.cli.output_arg import write_output
from desktop.cli.workflow_arg import load_or_report
from desktop.graph.io import save_workflow
from desktop.graph.layout import auto_layout
from desktop.wording import plural


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `layout` subcommand."""
    p = sub.add_parser("layout", help="lay out a workflow's nodes automatically",
                       description="Place nodes in layers left to right (or by a force "
                                   "layout for tangled graphs) and save the positions.")
    p.add_argument("file", metavar="FILE", help="workflow file (*.flow.yaml)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write here (default: rewrite FILE in place, atomically)")
    p.add_argument("--method", choices=["auto", "layered", "force"], default="auto",
                   help="layout method (default: auto)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Lay out and save; 2 when the workflow cannot be loaded or -o cannot be written."""
    doc = load_or_report(args.file)
    if doc is None:
        return 2
    target = args.output or args.file
    code = write_output("layout", target, "laid-out.flow.yaml",
                        lambda: save_workflow(auto_layout(doc, args.method), target))
    if code == 0:
        print(f"{target}: {plural(len(doc.nodes), 'node')} placed")
    return code
