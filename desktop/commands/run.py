"""`agent-canvas run` (not yet implemented)."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `run` subcommand."""
    p = sub.add_parser("run", help="(not yet implemented)")
    p.set_defaults(handler=lambda args: 2)
