"""`agent-canvas export` (not yet implemented)."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `export` subcommand."""
    p = sub.add_parser("export", help="(not yet implemented)")
    p.set_defaults(handler=lambda args: 2)
