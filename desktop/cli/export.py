"""`agent-canvas export FILE --format mermaid|dot [-o OUT]`."""

import argparse
import sys

from desktop.cli.output_arg import given_path, write_output
from desktop.cli.workflow_arg import given_workflow, load_or_report, say_if_invalid
from desktop.graph.export import FORMATS, export, write_export


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `export` subcommand."""
    p = sub.add_parser("export", help="export a workflow as Mermaid or Graphviz DOT",
                       description="Write a workflow as a Mermaid flowchart or a DOT graph.")
    p.add_argument("file", metavar="FILE", type=given_workflow, help="workflow file (*.flow.yaml)")
    p.add_argument("--format", "-f", choices=sorted(FORMATS), default="mermaid",
                   help="output format (default: mermaid)")
    p.add_argument("-o", "--output", metavar="OUT", type=given_path,
                   help="write here instead of stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Export; 2 when the workflow cannot be loaded or -o cannot be written."""
    doc = load_or_report(args.file)
    if doc is None:
        return 2
    say_if_invalid("export", args.file, doc)
    if args.output:
        example = "graph.mmd" if args.format == "mermaid" else f"graph.{args.format}"
        return write_output("export", args.output, example,
                            lambda: write_export(doc, args.format, args.output))
    sys.stdout.write(export(doc, args.format))
    return 0
