"""`agent-canvas serve`: run the engine as a local service (REST + WebSocket API).

Prints `serving http://HOST:PORT` once it accepts connections and writes
DATA_DIR/server.json (url, token, pid; mode 0600). Clients send the token as
`Authorization: Bearer TOKEN`. SIGTERM or Ctrl-C detaches every live run
(resumable later) and removes server.json. Exit codes: 0 clean exit, 1 could
not listen, 2 another service already serves the data folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop.disk.paths import data_dir


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `serve` subcommand."""
    p = sub.add_parser("serve", help="run the engine as a local service (REST + WebSocket)",
                       description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; others are warned about)")
    p.add_argument("--port", type=int, default=0,
                   help="port to listen on (default 0: any free port)")
    p.add_argument("--data-dir", help="where runs live (default: the user data folder)")
    p.add_argument("--workflow-root", action="append", default=[], metavar="DIR",
                   help="a folder workflow files may be started from (repeatable; default: "
                        "the current folder). The data folder and the bundled examples are "
                        "always allowed")
    p.add_argument("--concurrency", type=int, default=4, metavar="N",
                   help="turns that may run at once in each run (default 4)")
    p.set_defaults(handler=serve_command)


def serve_command(args: argparse.Namespace) -> int:
    """Serve until SIGTERM/SIGINT; the exit code."""
    from desktop.api.server import ServeConfig, main

    if not 0 <= args.port <= 65535:
        print(f"agent-canvas serve: --port must be 0-65535, not {args.port}", file=sys.stderr)
        return 2
    roots = [Path(root) for root in args.workflow_root]
    missing = [str(root) for root in roots if not root.is_dir()]
    if missing:
        print(f"agent-canvas serve: --workflow-root {', '.join(missing)}: no such folder",
              file=sys.stderr)
        return 2
    if args.concurrency < 1:
        print("agent-canvas serve: --concurrency must be at least 1", file=sys.stderr)
        return 2
    config = ServeConfig(data_dir=data_dir(args.data_dir), host=args.host, port=args.port,
                         workflow_roots=roots, concurrency=args.concurrency)
    return main(config)
