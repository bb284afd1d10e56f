"""`agent-canvas runs` (not yet implemented)."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `runs` subcommand."""
    p = sub.add_parser("runs", help="(not yet implemented)")
    p.set_defaults(handler=lambda args: 2)
