"""Opening the desktop window (``agent-canvas [FILE]`` or ``agent-canvas gui``)."""

import argparse
import os
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``gui`` subcommand."""
    p = sub.add_parser("gui", help="open the desktop app, optionally on a workflow file")
    p.add_argument("file", nargs="?",
                   help="a *.flow.yaml workflow to open, or a run's folder to show")
    p.set_defaults(handler=lambda args: open_gui(args.file))


def has_display() -> bool:
    """Whether a window can be shown (a display server, or an explicit Qt platform)."""
    if sys.platform in ("win32", "darwin"):
        return True
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_gui(path: str | None) -> int:
    """Open the main window; exit 2 with a clear message when there is no display."""
    if not has_display():
        print(
            "agent-canvas: no display found (DISPLAY and WAYLAND_DISPLAY are unset).\n"
            "  Run it in a desktop session, under Xvfb (DISPLAY=:99), or use the CLI:"
            " agent-canvas --help",
            file=sys.stderr,
        )
        return 2
    from desktop.ui.app import run_app

    return run_app(path)
