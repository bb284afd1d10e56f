"""`agent-canvas bus post`: an agent posts to its run's message bus.

See :mod:`desktop.providers.bus_client` for where the message goes.
"""

import argparse
import sys

from desktop.providers.bus_client import POST_TYPES, BusError, post_message


def _post(args: argparse.Namespace) -> int:
    message = " ".join(args.message).strip()
    if not message:
        print("bus post: give the message text", file=sys.stderr)
        return 2
    try:
        post_message(args.type, message, handoff=args.handoff)
    except BusError as exc:
        print(f"bus post: {exc}", file=sys.stderr)
        return 2
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `bus` subcommand."""
    p = sub.add_parser("bus", help="post to a run's message bus (used by agents)")
    bus_sub = p.add_subparsers(dest="bus_command", metavar="ACTION", required=True)
    post = bus_sub.add_parser("post", help="post a PROGRESS, FACT, ERROR, DECISION or QUESTION")
    post.add_argument("--type", "-t", default="PROGRESS", type=str.upper, choices=POST_TYPES,
                      help="kind of message (default PROGRESS)")
    post.add_argument("--handoff", metavar="NODE",
                      help="hand the message off to node NODE (by key)")
    post.add_argument("message", nargs="+", help="the message text")
    post.set_defaults(handler=_post)
