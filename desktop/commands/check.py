"""`agent-canvas check` (not yet implemented)."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `check` subcommand."""
    p = sub.add_parser("check", help="(not yet implemented)")
    p.set_defaults(handler=lambda args: 2)
