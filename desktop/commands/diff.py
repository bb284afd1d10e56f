"""`agent-canvas diff OLD NEW [--json]`: what one workflow adds, removes and changes
relative to another, layout left out. Exit 0 when the same, 1 when they differ, 2 when
a file cannot be read (like ``diff``)."""

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `diff` subcommand."""
    p = sub.add_parser(
        "diff", help="compare two workflows (exit 0 same, 1 different, 2 bad input)",
        description="List the nodes, edges and parameters NEW adds, removes or changes "
                    "relative to OLD. Positions, notes and groups (layout) are left out.")
    p.add_argument("old", metavar="OLD", help="the workflow to compare from (*.flow.yaml)")
    p.add_argument("new", metavar="NEW", help="the workflow to compare with it")
    p.add_argument("--json", action="store_true", help="print the differences as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the differences; 0 same, 1 different, 2 when a file cannot be loaded."""
    import orjson

    from desktop.commands.workflow_arg import load_or_report
    from desktop.graph.flow_diff import diff_flows
    from desktop.graph.flow_diff_text import diff_lines

    old = load_or_report(args.old)
    new = load_or_report(args.new)
    if old is None or new is None:
        return 2
    diff = diff_flows(old, new)
    if args.json:
        sys.stdout.write(orjson.dumps(diff.to_json(), option=orjson.OPT_INDENT_2).decode()
                         + "\n")
    else:
        for line in diff_lines(diff):
            print(line)
    return 0 if diff.same else 1
