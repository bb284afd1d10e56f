"""`agent-canvas bus` (not yet implemented)."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `bus` subcommand."""
    p = sub.add_parser("bus", help="(not yet implemented)")
    p.set_defaults(handler=lambda args: 2)
