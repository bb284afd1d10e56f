"""`agent-canvas layout FILE [-o OUT] [--force]`: give every node a position.

The file is written from the workflow's fields, which hold no comments; rewriting a
FILE that has comments is refused unless ``--force`` says to drop them (``-o OTHER``
leaves FILE as it is).
"""

import argparse
import os
import sys
from pathlib import Path

from desktop.cli.output_arg import EXIT_BAD_INPUT, given_path, unwritable, write_output
from desktop.cli.workflow_arg import given_workflow, load_or_report, say_if_invalid
from desktop.graph.io import save_workflow
from desktop.graph.layout import auto_layout
from desktop.graph.yaml_comments import first_comment_line
from desktop.wording import plural


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `layout` subcommand."""
    p = sub.add_parser("layout", help="lay out a workflow's nodes automatically",
                       description="Place nodes in layers left to right (or by a force "
                                   "layout for tangled graphs) and save the positions. "
                                   "The file is written from the workflow's fields, "
                                   "without YAML comments: a FILE with comments is not "
                                   "rewritten in place unless --force is given (write "
                                   "the result elsewhere with -o OTHER to keep FILE).")
    p.add_argument("file", metavar="FILE", type=given_workflow, help="workflow file (*.flow.yaml)")
    p.add_argument("-o", "--output", metavar="OUT", type=given_path,
                   help="write here (default: rewrite FILE in place, atomically)")
    p.add_argument("--method", choices=["auto", "layered", "force"], default="auto",
                   help="layout method (default: auto)")
    p.add_argument("--force", action="store_true",
                   help="rewrite FILE in place even when that drops its comments")
    p.set_defaults(handler=run)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # OUT does not exist yet: it is another file
        return Path(a).absolute() == Path(b).absolute()


def comments_lost(path: str) -> str | None:
    """Why rewriting ``path`` in place is refused (it has comments), or None."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None  # it was just loaded; a file that changed since fails at the write
    line = first_comment_line(text)
    if line is None:
        return None
    return (f"layout: {path} has comments (the first on line {line}) that rewriting it "
            "would drop: the file is written from the workflow's fields, which hold no "
            f"comments. Write the layout to another file with -o OTHER, or give --force "
            f"to rewrite {path} without its comments")


def run(args: argparse.Namespace) -> int:
    """Lay out and save; 2 when the workflow cannot be loaded, -o cannot be written, or
    FILE would lose its comments."""
    doc = load_or_report(args.file)
    if doc is None:
        return EXIT_BAD_INPUT
    say_if_invalid("layout", args.file, doc)
    target = args.output or args.file
    # a FILE that may not be rewritten is said first: --force for its comments would not help
    problem = unwritable("layout", target, "laid-out.flow.yaml")
    if problem is not None:
        print(problem, file=sys.stderr)
        return EXIT_BAD_INPUT
    if not args.force and _same_file(target, args.file):
        problem = comments_lost(args.file)
        if problem is not None:
            print(problem, file=sys.stderr)
            return EXIT_BAD_INPUT
    code = write_output("layout", target, "laid-out.flow.yaml",
                        lambda: save_workflow(auto_layout(doc, args.method), target))
    if code == 0:
        print(f"{target}: {plural(len(doc.nodes), 'node')} placed")
    return code
