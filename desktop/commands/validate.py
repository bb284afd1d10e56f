"""`agent-canvas validate` (not yet implemented)."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `validate` subcommand."""
    p = sub.add_parser("validate", help="(not yet implemented)")
    p.set_defaults(handler=lambda args: 2)
