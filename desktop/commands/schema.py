"""`agent-canvas schema` (not yet implemented)."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `schema` subcommand."""
    p = sub.add_parser("schema", help="(not yet implemented)")
    p.set_defaults(handler=lambda args: 2)
