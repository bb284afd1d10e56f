"""The ``agent-canvas`` command. With no subcommand (or a workflow file) it opens the GUI."""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from desktop import __version__
from desktop.cli import COMMANDS, modules
from desktop.cli.self_launch import INTERNAL_COMMANDS, run_internal


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every subcommand, or just ``only`` (faster to start)."""
    parser = argparse.ArgumentParser(
        prog="agent-canvas",
        description="Draw, run, watch and replay agent-orchestration graphs.",
    )
    parser.add_argument("--version", action="version", version=f"agent-canvas {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in modules(only):
        module.register(sub)
    return parser


def _looks_like_workflow(arg: str) -> bool:
    return Path(arg).exists() or arg.endswith((".yaml", ".yml"))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in INTERNAL_COMMANDS:  # started by the app itself
        return run_internal(args_list[0], args_list[1:])
    if args_list == ["--version"]:  # without loading every command's module first
        print(f"agent-canvas {__version__}")
        return 0
    known = set(COMMANDS)
    if not args_list or (args_list[0] not in known and not args_list[0].startswith("-")):
        if args_list and not _looks_like_workflow(args_list[0]):
            print(f"agent-canvas: {args_list[0]!r} is neither a command nor a workflow file\n"
                  f"  commands: {', '.join(sorted(known))}", file=sys.stderr)
            return 2
        from desktop.cli.gui import open_gui

        return open_gui(args_list[0] if args_list else None)
    parser = build_parser(args_list[0] if args_list[0] in known else None)
    args = parser.parse_args(args_list)
    if "data_dir" in vars(args):  # every command that keeps or reads runs has --data-dir
        from desktop.disk.paths import data_dir_problem

        problem = data_dir_problem(args.data_dir)
        if problem is not None:
            print(f"agent-canvas {args.command}: {problem}", file=sys.stderr)
            return 2
    from desktop.contract import client_origin as origin

    origin.declare(origin.TERMINAL)  # a decision sent from here was made in the terminal
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
