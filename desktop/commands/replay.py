"""`agent-canvas replay` (not yet implemented)."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `replay` subcommand."""
    p = sub.add_parser("replay", help="(not yet implemented)")
    p.set_defaults(handler=lambda args: 2)
