"""`agent-canvas layout` (not yet implemented)."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `layout` subcommand."""
    p = sub.add_parser("layout", help="(not yet implemented)")
    p.set_defaults(handler=lambda args: 2)
